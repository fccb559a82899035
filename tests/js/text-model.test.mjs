// text-model.test.mjs - the decoder-only character model in JS (TextModel over Model, arch
// "decoder"; model/lm.js, model/text-model.js, model/sampling.js): the KV-cache step's
// distribution and attention rows against a full forward pass over the same context (an
// independent path through the core: sx_model_forward, no cache), sampling that never draws a
// zero or a non-character, seeded reproducibility, the three shipped models' held-out bits per
// character on a slice of build/text/devil-test.txt against the trainer's figures (loosely: a
// slice, not the whole split), fine-tuning that lowers the loss, bad input, flat memory. On both
// wasm builds.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { builds, DIST, throwsExactly } from "./helpers.mjs";

const SUMMARY = JSON.parse(readFileSync(new URL("models/text/summary.json", DIST), "utf8"));
const bytes = (name) => readFileSync(new URL(`models/text/${name}.sxm`, DIST));
const TEST_TXT = new URL("../../build/text/devil-test.txt", import.meta.url);
const PROMPT = "LOVE, n. A temporary insanity curable by marriage";

/** Bits per character of text[from..to) predicted from up to 64 characters before each, the
 *  trainer's windows (tools/train-gpt.c): context 64, stride 32, each window scoring its last
 *  half (the first all of it); the text preceded by a newline. Also the fraction in support. */
function bitsPerChar(tm, text, n) {
  const t = "\n" + text.slice(0, n);
  const ids = tm.encode(t);
  const W = 64, H = 32;
  let bits = 0, inSupport = 0, scored = 0;
  for (let st = 0; scored < n; st += H) {
    const s0 = Math.min(st, ids.length - 1 - W);
    for (let j = 0; j < W; j++) {
      const { probs } = tm.model.lmStep([ids[s0 + j]], j);
      if (s0 + j < scored) continue;
      const p = probs[ids[s0 + j + 1]];
      bits += -Math.log2(p);
      inSupport += p > 0;
      scored++;
    }
  }
  return { bpc: bits / n, inSupport: inSupport / n };
}

for (const { name: build, sx } of await builds()) {
  const { Model, TextModel } = sx;
  const load = (s) => TextModel.load(bytes(s.name), s);

  describe(`TextModel (${build})`, () => {
    test("next: the KV-cache distribution and attention rows equal a full forward pass", () => {
      for (const s of SUMMARY) {
        const tm = load(s);
        try {
          const r = tm.next(PROMPT);
          const ids = tm.encode(PROMPT), T = ids.length, V = tm.model.config.vocab;
          const full = tm.model.forward(null, [ids], { probs: true });
          const want = full.probs.subarray((T - 1) * V, T * V);
          let worst = 0;
          for (let v = 0; v < V; v++) {
            worst = Math.max(worst, Math.abs(r.probs[v] - want[v]));
            assert.equal(r.probs[v] === 0, want[v] === 0, `${s.name}: token ${v} zero in one only`);
          }
          assert.ok(worst < 2e-5, `${s.name}: |cached - full| = ${worst}`);
          const { layers, heads } = tm.model.config;
          assert.equal(full.attention.length, layers);
          for (let l = 0; l < layers; l++) {
            const a = full.attention[l];
            assert.equal(a.kind, "decoder");
            for (let h = 0; h < heads; h++) {
              const row = a.data.subarray((h * T + T - 1) * T, (h * T + T) * T);
              assert.equal(r.attention[l][h].length, T);
              for (let j = 0; j < T; j++) assert.ok(Math.abs(r.attention[l][h][j] - row[j]) < 2e-5, `${s.name} L${l} H${h} key ${j}`);
            }
          }
          if (s.output === "entmax15") assert.ok(r.probs.filter((p) => p === 0).length > V / 2, "a sparse output has zeros");
        } finally {
          tm.free();
        }
      }
    });

    test("generate: each yielded distribution equals next() on the context it continues", () => {
      const s = SUMMARY[2];
      const tm = load(s);
      try {
        const seen = [];
        for (const st of tm.generate("LOVE, n. ", { maxChars: 70, seed: 5 })) seen.push(st);
        assert.equal(seen.length, 70);
        for (const i of [0, 30, 56, 57, 69]) { // 57: past the 65-position cache (cut and re-read)
          const st = seen[i];
          const r = tm.next(st.context);
          for (let v = 0; v < r.probs.length; v++) assert.ok(Math.abs(r.probs[v] - st.probs[v]) < 2e-5, `step ${i}`);
          assert.ok(st.probs[st.token] > 0, `step ${i} drew a zero`);
          assert.equal(st.char, tm.decode([st.token]));
        }
      } finally {
        tm.free();
      }
    });

    test("seeded generation is reproducible; another seed differs", () => {
      const tm = load(SUMMARY[0]);
      try {
        const text = (opts) => Array.from(tm.generate("LOVE, n. ", opts), (x) => x.char).join("");
        const a = text({ maxChars: 60, seed: 7, temperature: 0.8, topP: 0.95 });
        assert.equal(text({ maxChars: 60, seed: 7, temperature: 0.8, topP: 0.95 }), a);
        assert.notEqual(text({ maxChars: 60, seed: 8, temperature: 0.8, topP: 0.95 }), a);
        const g = tm.generate("LOVE", { maxChars: 5 });
        g.next();
        tm.next("X");
        throwsExactly(() => g.next(), Error, "textModel.generate: the model was used by another call since this generator started; start a new one");
      } finally {
        tm.free();
      }
    });

    test("sample: never a zero or a non-character; top-k, top-p and temperature as defined", () => {
      const tm = load(SUMMARY[2]);
      try {
        const { probs } = tm.next(PROMPT);
        const random = TextModel.random(3);
        for (const opts of [{}, { temperature: 3 }, { temperature: 0.3 }, { topK: 2 }, { topP: 0.5 }]) {
          for (let i = 0; i < 300; i++) {
            const t = tm.sample(probs, { ...opts, random });
            assert.ok(probs[t] > 0 && t >= tm.tokenOffset, `${JSON.stringify(opts)} drew ${t} (p ${probs[t]})`);
          }
        }
        // a hand-made distribution: tokens 3.. are characters
        const p = new Float32Array(tm.model.config.vocab);
        p[0] = 0.5; p[10] = 0.3; p[11] = 0.15; p[12] = 0.05;
        const counts = (opts, n = 4000) => {
          const c = new Map(), r = TextModel.random(11);
          for (let i = 0; i < n; i++) { const t = tm.sample(p, { ...opts, random: r }); c.set(t, (c.get(t) ?? 0) + 1); }
          return c;
        };
        assert.deepEqual([...counts({ topK: 1 }).keys()], [10]);
        assert.deepEqual([...counts({ topP: 0.6 }).keys()].sort(), [10]); // 0.3/0.5 = 0.6 reaches it
        assert.deepEqual([...counts({ topP: 0.7 }).keys()].sort(), [10, 11]);
        const c = counts({}, 20000);
        assert.ok(!c.has(0), "a special token was drawn");
        assert.ok(Math.abs(c.get(10) / 20000 - 0.6) < 0.02 && Math.abs(c.get(12) / 20000 - 0.1) < 0.01);
        const cold = counts({ temperature: 0.5 }, 20000); // p^2: 0.09, 0.0225, 0.0025
        assert.ok(Math.abs(cold.get(10) / 20000 - 0.09 / 0.115) < 0.02);
      } finally {
        tm.free();
      }
    });

    test("the shipped models' held-out bits per character match the trainer's (a 1200-character slice)", {
      skip: !existsSync(TEST_TXT) && "build/text/devil-test.txt is missing: run make text",
    }, () => {
      const text = readFileSync(TEST_TXT, "utf8");
      for (const s of SUMMARY) {
        const tm = load(s);
        try {
          const r = bitsPerChar(tm, text, 1200);
          if (s.test_bpc !== null) assert.ok(Math.abs(r.bpc - s.test_bpc) < 0.35, `${s.name}: ${r.bpc} vs ${s.test_bpc}`);
          else assert.equal(r.bpc, Infinity, `${s.name}: a true character at probability 0`);
          assert.ok(Math.abs(r.inSupport - s.test_in_support) < 0.03, `${s.name}: in support ${r.inSupport} vs ${s.test_in_support}`);
        } finally {
          tm.free();
        }
      }
    });

    test("trainStep: fine-tuning on a short text lowers its loss", () => {
      const tm = load(SUMMARY[0]);
      try {
        const text = "The quick brown fox jumps over the lazy dog. ".repeat(4);
        const random = TextModel.random(1);
        const first = tm.trainStep(text, { lr: 3e-3, random });
        let last = first;
        for (let i = 0; i < 30; i++) last = tm.trainStep(text, { lr: 3e-3, random });
        assert.ok(last < first * 0.5, `loss ${first} -> ${last}`);
      } finally {
        tm.free();
      }
    });

    test("bad input: TypeError/RangeError naming the function, argument and value", () => {
      const s = SUMMARY[0];
      throwsExactly(() => TextModel.load(bytes(s.name), { chars: "", token_offset: 3 }), TypeError, 'TextModel: vocab.chars must be a non-empty string (got "")');
      throwsExactly(() => TextModel.load(bytes(s.name), { chars: "ab", token_offset: 98 }), RangeError, "TextModel: vocab.token_offset + vocab.chars.length must be <= the model's vocab 99 (got 100)");
      throwsExactly(() => TextModel.load(bytes(s.name), { chars: "aa", token_offset: 3 }), RangeError, 'TextModel: vocab.chars repeats "a" (index 1)');
      const ed = new Model({ vocab: 8, maxLen: 8 });
      throwsExactly(() => new TextModel(ed, s), RangeError, 'TextModel: model must be decoder-only (config.arch "decoder") (got "encoder-decoder")');
      throwsExactly(() => ed.lmStep([1], 0), TypeError, 'model.lmStep: the model is not decoder-only (config.arch "encoder-decoder")');
      ed.free();
      const tm = load(s);
      try {
        throwsExactly(() => tm.encode("café"), RangeError, `textModel.encode: text[3] "é" is not in the model's characters`);
        throwsExactly(() => tm.next(""), RangeError, 'textModel.next: prompt must hold at least one character (got "")');
        throwsExactly(() => tm.next(5), TypeError, "textModel.next: prompt must be a string (got 5)");
        throwsExactly(() => tm.decode([2]), RangeError, "textModel.decode: tokens[0] must be a character token in [3, 98] (got 2)");
        throwsExactly(() => tm.generate("a", { temperature: 0 }).next(), RangeError, "textModel.generate: temperature must be in [0.01, 100] (got 0)");
        throwsExactly(() => tm.generate("a", { topK: 1.5 }).next(), RangeError, "textModel.generate: topK must be an integer in [0, 4096] (got 1.5)");
        throwsExactly(() => tm.sample(new Float32Array(99)), RangeError, "textModel.sample: probs has no mass on a character token");
        throwsExactly(() => tm.sample([1, 2]), TypeError, /^textModel\.sample: probs must be a Float32Array, Float64Array or array of the model's 99 token probabilities/);
        throwsExactly(() => tm.trainStep("a"), RangeError, "textModel.trainStep: text must hold at least 2 characters (got 1)");
        throwsExactly(() => tm.model.lmStep([1], 5), sx.SimplexityError, /^model.lmStep: model_lm_step: pos 5 with 1 rows does not continue the open rows/);
        throwsExactly(() => tm.model.lmStep([99], 0), RangeError, /^model\.lmStep: tokens/);
        throwsExactly(() => tm.model.lmStep([1], 65), RangeError, "model.lmStep: pos must be an integer in [0, 64] (got 65)");
        throwsExactly(() => tm.model.forward([[1]], [[1]]), TypeError, 'model.forward: a decoder-only model (config.arch "decoder") takes no src: pass null (got an Array)');
        throwsExactly(() => new Model({ vocab: 8, maxLen: 8, arch: "gpt" }), RangeError, 'Model: config.arch must be one of "encoder-decoder", "decoder" (got "gpt")');
      } finally {
        tm.free();
      }
      throwsExactly(() => tm.next("a"), Error, /this model has been freed/);
    });

    test("a decoder-only Model from a config trains on tgt rows alone and round-trips through save", () => {
      const m = new Model({ vocab: 10, maxLen: 12, arch: "decoder", output: "entmax15" });
      try {
        assert.equal(m.config.arch, "decoder");
        const rows = [[3, 4, 5, 6, 7, 8, 3, 4, 5, 6, 7, 8]];
        const l0 = m.trainStep({ tgt: rows }, { lr: 1e-2 });
        for (let i = 0; i < 40; i++) m.trainStep({ tgt: rows }, { lr: 1e-2 });
        assert.ok(m.loss({ tgt: rows }) < l0);
        const back = Model.load(m.save());
        assert.equal(back.config.arch, "decoder");
        assert.deepEqual(back.lmStep([3], 0).probs, m.lmStep([3], 0).probs);
        back.free();
      } finally {
        m.free();
      }
    });

    test("memory stays flat over many next, generate, trainStep and load/free calls", () => {
      const s = SUMMARY[2];
      const tm = load(s);
      try {
        const step = () => {
          tm.next(PROMPT);
          for (const x of tm.generate("LOVE", { maxChars: 70 })) void x;
          tm.trainStep(PROMPT, { batch: 4, lr: 1e-4 });
          load(s).free();
        };
        for (let i = 0; i < 3; i++) step();
        const before = sx.info().memoryBytes;
        for (let i = 0; i < 40; i++) step();
        assert.equal(sx.info().memoryBytes, before);
      } finally {
        tm.free();
      }
    });
  });
}
