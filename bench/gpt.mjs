// gpt.mjs - `make bench-gpt` (issue 23, item 5): the character models' speed against the seq2seq
// model's, native and SIMD wasm, ratios measured in one run.
//
//   node bench/gpt.mjs [--rounds R] [--ms T] [--out DIR] [--native path/to/bench_gpt]
//                      [--text build/text/devil-valid.txt]
//
// For each shipped character model (dist/models/text/summary.json: devil-softmax, -entmax15,
// -entmax15-out) and, as the baseline, the shipped seq2seq model reverse-alpha:
//   cache     generation with the KV cache: the model reads the prompt "LOVE, n. " and writes until
//             its 64-character context is full (55 characters), greedy. SIMD wasm through the
//             JS API: TextModel.generate(prompt, { topK: 1, attention: false }); native:
//             sx_model_lm_step (bench/bench_gpt.c). The seq2seq model: model.generate(src,
//             { count: 1 }) on 8 held-out sources, one call each (the page's use: one at a time).
//   no cache  the same characters, recomputing the whole prefix for each: model.forward(null,
//             [prefix], { probs: true }) and TextModel.sample(last row, { topK: 1 }) (native:
//             sx_model_forward); the seq2seq model: generate with { cache: false }.
//   train     one training step: TextModel.trainStep(text, { batch: 32, lr: 1e-4 }) on windows
//             of the model's 65 tokens of --text (the trainer's batch and context; native:
//             sx_model_train_step on the same shape); the seq2seq model: model.trainStep on 64
//             train examples of the reverse task (tools/train.c's batch), cycling over 4 batches.
// Units: generated characters (the seq2seq model: tokens, EOS included) per second, steps per
// second. Method for a noisy 2-core shared machine: R rounds; in each, every (build, model, case)
// runs for T ms of CPU time after warm-up (native: one bench_gpt run per round, the two builds'
// order alternating between rounds; wasm: process.cpuUsage); the table shows medians over rounds,
// and a ratio is the median of the per-round ratios (both figures from the same round). Checked
// first, exit 1 otherwise: with and without the cache every model writes the same text, in each
// build; the seq2seq model's tokens likewise. Writes DIR/gpt.md (the README's bench-gpt block)
// and DIR/gpt.json (every round's figures).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { commandLine, wholeNumber, positiveNumber, existingFile, outputDir, mdTable, cpuSnapshot, foreignLoad } from './common.mjs';
import { COMMAND, PROMPT, CONTEXT, GPT_BATCH, GPT_LR, S2S_MODEL, S2S_ROWS, S2S_BATCH, S2S_CYCLE, S2S_LR, HEADER, tableRows } from './gpt-table.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'usage: node bench/gpt.mjs [--rounds R] [--ms T] [--out DIR] [--native path/to/bench_gpt] [--text FILE]\n' +
  'exit code 1: with and without the cache a model wrote different text, or a build failed; 2: a bad command line';
const { ROUNDS, MS, OUT, NATIVE, TEXT } = commandLine('bench/gpt.mjs', USAGE, {
  rounds: { type: 'string' }, ms: { type: 'string' }, out: { type: 'string' }, native: { type: 'string' }, text: { type: 'string' },
}, (v, bad) => ({
  ROUNDS: v.rounds === undefined ? 5 : wholeNumber(v.rounds, '--rounds', bad),
  MS: v.ms === undefined ? 200 : positiveNumber(v.ms, '--ms', bad),
  OUT: outputDir(v.out ?? path.join(root, 'build/bench'), '--out', bad),
  NATIVE: existingFile(v.native ?? path.join(root, 'build/bench/bench_gpt'), '--native', bad),
  TEXT: existingFile(v.text ?? path.join(root, 'build/text/devil-valid.txt'), '--text', bad),
}));

const dist = path.join(root, 'dist');
const summary = JSON.parse(readFileSync(path.join(dist, 'models/text/summary.json'), 'utf8'));
const MODELS = summary.map((e) => e.name);
const fileOf = (name) => (name === S2S_MODEL ? path.join(dist, `models/${name}.sxm`) : path.join(dist, `models/text/${name}.sxm`));
const text = readFileSync(TEXT, 'utf8');
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const mismatches = [];
const agree = (what, a, b) => { if (a !== b) mismatches.push(`MISMATCH ${what}: ${JSON.stringify(a).slice(0, 80)} vs ${JSON.stringify(b).slice(0, 80)}`); };

// ------------------------------------------------------------------ native
const nativeCases = [
  ...[S2S_MODEL].flatMap((m) => [`s2s-gen:cache:${fileOf(m)}`, `s2s-gen:full:${fileOf(m)}`, `s2s-train:${fileOf(m)}`]),
  ...MODELS.flatMap((m) => [`gen:cache:${fileOf(m)}`, `gen:full:${fileOf(m)}`, `train:${fileOf(m)}`]),
];
const KEY = { 'gen:cache': 'cache', 'gen:full': 'full', train: 'train', 's2s-gen:cache': 'cache', 's2s-gen:full': 'full', 's2s-train': 'train' };

/** One bench_gpt run over every case: { [model]: { cache, full, train } } per second, and the outputs. */
function nativeRound(order) {
  const cases = order ? nativeCases : [...nativeCases].reverse();
  const r = spawnSync(NATIVE, ['--ms', String(MS), '--text', TEXT, '--prompt', PROMPT, '--cases', cases.join(',')], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`bench_gpt failed (${r.status}): ${r.stderr}`);
  const out = {}, texts = {};
  for (const x of JSON.parse(r.stdout).results) {
    const file = x.case.slice(x.case.lastIndexOf(':') + 1), kind = x.case.slice(0, x.case.lastIndexOf(':'));
    const model = path.basename(file, '.sxm');
    (out[model] ??= {})[KEY[kind]] = (x.units * 1000) / x.cpu_ms;
    if (x.out !== undefined) (texts[model] ??= {})[KEY[kind]] = x.out;
  }
  return { out, texts };
}

// ---------------------------------------------------------------- SIMD wasm
const sx = await import(pathToFileURL(path.join(dist, 'simplexity.js')).href);
await sx.init({ simd: true });
if (!sx.info().simd) throw new Error('the SIMD build did not load');
const { Model, TextModel, tasks } = sx;
const bytes = (name) => readFileSync(fileOf(name));

/** Times f for MS ms of CPU time after two warm-up calls: f's units per second. */
function rate(f) {
  f(); f();
  let n = 0, units = 0;
  const t0 = cpuMs();
  let t = t0;
  while (t - t0 < MS) { units += f(); n++; t = cpuMs(); }
  return (units * 1000) / (t - t0);
}

function gptCells(entry) {
  const gen = TextModel.load(bytes(entry.name), entry), trainer = TextModel.load(bytes(entry.name), entry);
  const G = CONTEXT - PROMPT.length, V = gen.model.config.vocab;
  const cache = () => {
    let s = PROMPT;
    for (const st of gen.generate(PROMPT, { maxChars: G, topK: 1, attention: false })) s += st.char;
    return s;
  };
  const full = () => {
    const ids = Array.from(gen.encode(PROMPT));
    for (let t = ids.length; t < CONTEXT; t++) {
      const { probs } = gen.model.forward(null, [ids], { attention: false, probs: true });
      ids.push(gen.sample(probs.subarray((t - 1) * V, t * V), { topK: 1 }));
    }
    return PROMPT + gen.decode(ids.slice(PROMPT.length));
  };
  const random = TextModel.random(1);
  return {
    texts: { cache: cache(), full: full() },
    cache: () => cache().length - PROMPT.length,
    full: () => full().length - PROMPT.length,
    train: () => { trainer.trainStep(text, { batch: GPT_BATCH, lr: GPT_LR, random }); return 1; },
    free: () => { gen.free(); trainer.free(); },
  };
}

function s2sCells() {
  const dec = Model.load(bytes(S2S_MODEL)), trainer = Model.load(bytes(S2S_MODEL));
  const T = dec.config.maxLen;
  const { src } = tasks.generate('reverse', { seed: 5, count: S2S_ROWS, split: 'heldout' });
  const run = (cache) => {
    const rows = [];
    for (let r = 0; r < S2S_ROWS; r++) rows.push(...dec.generate(src.subarray(r * T, (r + 1) * T), { count: 1, cache })[0]);
    return rows;
  };
  const tokens = (rows) => { let k = 0; for (let r = 0; r < S2S_ROWS; r++) for (let j = 1; j < T && rows[r * T + j] !== 0; j++) k++; return k; };
  const b = tasks.generate('reverse', { seed: 1, count: S2S_CYCLE * S2S_BATCH, split: 'train' });
  const n = S2S_BATCH * T;
  const batches = Array.from({ length: S2S_CYCLE }, (_, k) => ({ src: b.src.subarray(k * n, (k + 1) * n), tgt: b.tgt.subarray(k * n, (k + 1) * n), shape: [S2S_BATCH, T] }));
  let step = 0;
  return {
    width: T,
    texts: { cache: run(true).join(' '), full: run(false).join(' ') },
    cache: () => tokens(run(true)),
    full: () => tokens(run(false)),
    train: () => { trainer.trainStep(batches[step++ % S2S_CYCLE], { lr: S2S_LR }); return 1; },
    free: () => { dec.free(); trainer.free(); },
  };
}

const wasm = { [S2S_MODEL]: s2sCells() };
const S2S_WIDTH = wasm[S2S_MODEL].width;
for (const e of summary) wasm[e.name] = gptCells(e);

function wasmRound(order) {
  const out = {};
  const names = order ? [S2S_MODEL, ...MODELS] : [...MODELS, S2S_MODEL].reverse();
  for (const m of names) {
    out[m] = {};
    for (const k of order ? ['cache', 'full', 'train'] : ['train', 'full', 'cache']) out[m][k] = rate(wasm[m][k]);
  }
  return out;
}

// ------------------------------------------------------------------ checks
const first = nativeRound(true);
for (const m of [S2S_MODEL, ...MODELS]) {
  agree(`native ${m}: with and without the cache`, first.texts[m].cache, first.texts[m].full);
  agree(`SIMD wasm ${m}: with and without the cache`, wasm[m].texts.cache, wasm[m].texts.full);
}
for (const l of mismatches) console.error(l);

// ------------------------------------------------------------------ rounds
const rounds = [];
const load0 = cpuSnapshot();
for (let r = 0; r < ROUNDS; r++) {
  const round = {};
  if (r % 2) { round['SIMD wasm'] = wasmRound(false); round.native = nativeRound(false).out; }
  else { round.native = nativeRound(true).out; round['SIMD wasm'] = wasmRound(true); }
  rounds.push(round);
  process.stderr.write(`bench-gpt: round ${r + 1} of ${ROUNDS}\n`);
}
const load = foreignLoad(load0, cpuSnapshot());
for (const m of Object.values(wasm)) m.free();

// ------------------------------------------------------------------ the table
const same = MODELS.map((m) => `${m} ${first.texts[m].cache === wasm[m].texts.cache ? 'the same' : 'not the same'}`).join(', ');
const md = [
  `\`${COMMAND}\`, one run: ${ROUNDS} rounds of ${MS} ms of CPU time per cell, medians; a ratio is the median of the per-round ratios (same round). ` +
  `Node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores` +
  `${load == null ? '' : `, other processes' load ${(100 * load).toFixed(0)}% of the machine`}.`,
  '',
  mdTable(HEADER, tableRows(rounds, MODELS), 2),
  '',
  `Generation: the prompt "${PROMPT}" and ${CONTEXT - PROMPT.length} characters written, greedy, until the ${CONTEXT}-character context is full ` +
  `(the seq2seq model: ${S2S_ROWS} held-out reverse sources decoded one at a time, tokens/s). Training: one step on ${GPT_BATCH} windows of 65 characters ` +
  `(the seq2seq model: ${S2S_BATCH} examples of ${S2S_WIDTH} tokens). Greedy text, native and SIMD wasm: ${same}.`,
].join('\n');
mkdirSync(OUT, { recursive: true });
writeFileSync(path.join(OUT, 'gpt.md'), md + '\n');
writeFileSync(path.join(OUT, 'gpt.json'), JSON.stringify({ ms: MS, rounds }, null, 1) + '\n');
console.log(md);
if (mismatches.length) process.exit(1);
