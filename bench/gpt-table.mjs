// gpt-table.mjs - what `make bench-gpt` (bench/gpt.mjs) and the README's check
// (tests/js/readme-bench-gpt.test.mjs) agree on: the command, the cases, the table's header and
// its rows from the per-round figures (medians over rounds; a ratio is the median of the
// per-round ratios, each measured in the same round).
import { median } from './common.mjs';

export const COMMAND = 'make bench-gpt';
export const PROMPT = 'LOVE, n. ';
export const CONTEXT = 64;              // bench_gpt.c's GPT_CONTEXT: the written text fills it
export const GPT_BATCH = 32, GPT_LR = 1e-4;   // bench_gpt.c's: the trainer's batch and context
export const S2S_MODEL = 'reverse-alpha';
export const S2S_ROWS = 8, S2S_BATCH = 64, S2S_CYCLE = 4, S2S_LR = 1e-4;
export const BUILDS = ['native', 'SIMD wasm'];

export const HEADER = ['model', 'build', 'chars/s, cache', 'vs seq2seq', 'chars/s, no cache', 'vs seq2seq',
  'cache / no cache', 'train steps/s', 'vs seq2seq', 'SIMD / native: cache, no cache, train'];

const fix = (x, d) => (x == null ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(d));
const times = (x) => (x == null ? '-' : `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}x`);

/**
 * The table's rows from `rounds`: an array of rounds, each { [build]: { [model]: { cache,
 * full, train } } }, cache and full in generated characters (tokens, for the seq2seq model) per
 * second, train in steps per second. models: the character models' names, in order.
 */
export function tableRows(rounds, models) {
  const per = (f) => median(rounds.map(f));
  const rows = [];
  for (const model of [S2S_MODEL, ...models]) {
    for (const build of BUILDS) {
      const v = (k, r) => r[build][model][k];
      const vs = (k) => (model === S2S_MODEL ? '1' : times(per((r) => v(k, r) / r[build][S2S_MODEL][k])));
      const simd = build === 'native' ? '' : ['cache', 'full', 'train'].map((k) => times(per((r) => v(k, r) / r.native[model][k]))).join(', ');
      rows.push([model === S2S_MODEL ? `${model} (seq2seq, tokens/s)` : model, build,
        fix(per((r) => v('cache', r)), 1), vs('cache'), fix(per((r) => v('full', r)), 1), vs('full'),
        times(per((r) => v('cache', r) / v('full', r))), fix(per((r) => v('train', r)), 2), vs('train'), simd]);
    }
  }
  return rows;
}
