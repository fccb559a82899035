// kvcache.test.mjs - incremental decoding (the KV cache) against the full recomputation
// (model.generate(src, { cache: false }): the whole decoder over the prefix at every step), on
// all 28 shipped models over 500 held-out examples each: the generated tokens must be equal
// exactly. Also with interventions, and the option's argument check. The maps and logits the
// core keeps after generate (equal to float rounding) are compared in tests/c/test_kvcache.c.
// On both wasm builds.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { builds, DIST } from "./helpers.mjs";

const TASKS = ["reverse", "sort", "after_marker", "date"];
const KINDS = ["softmax", "entmax15", "alpha", "alpha-span", "entmax15-out", "sparsemax-out"];
// the structured models (fusedmax, oscarmax in every layer) are shipped for two tasks
const kindsOf = (task) => (task === "after_marker" || task === "date" ? [...KINDS, "fusedmax", "oscarmax"] : KINDS);
const N = 500, BATCH = 100;
const bytes = (name) => readFileSync(new URL(`models/${name}.sxm`, DIST));

for (const { name: build, sx } of await builds()) {
  const { Model, tasks } = sx;
  describe(`kv cache (${build})`, () => {
    for (const task of TASKS) {
      test(`${task}: cached tokens = full recomputation on ${N} held-out examples, ${kindsOf(task).length} models`, () => {
        for (const kind of kindsOf(task)) {
          const m = Model.load(bytes(`${task}-${kind}`));
          try {
            const ended = new Set();
            for (let start = 0; start < N; start += BATCH) {
              const { src } = tasks.generate(task, { seed: 11, start, count: BATCH, split: "heldout" });
              const cached = m.generate(src, { count: BATCH });
              const full = m.generate(src, { count: BATCH, cache: false });
              assert.equal(cached.length, BATCH);
              for (let b = 0; b < BATCH; b++) {
                assert.deepEqual(cached[b], full[b], `${task}-${kind}: example ${start + b}`);
                ended.add(cached[b].indexOf(2)); // EOS at different steps: rows finish apart
              }
            }
            // (dates have one output length: there every row ends at the same step)
            if (task !== "date") assert.ok(ended.size >= 2, `${task}-${kind}: every row ended at the same step`);
          } finally {
            m.free();
          }
        }
      });
    }

    test("interventions apply in both paths", () => {
      const m = Model.load(bytes("reverse-alpha"));
      try {
        const { src } = tasks.generate("reverse", { seed: 3, count: 40, split: "heldout" });
        const plain = m.generate(src, { count: 40 });
        const edits = [
          [{ op: "ablate", kind: "cross", layer: 1, head: 0 }],
          [{ op: "mask", kind: "decoder", layer: 0, keys: [1, 2] }],
          [{ op: "replace", kind: "cross", layer: 0, head: 1, row: 2, weights: [0, 0, 1] }],
          [{ op: "erase", kind: "decoder", layer: 1, keys: [0] }],
        ];
        let changed = 0;
        for (const intervene of edits) {
          const cached = m.generate(src, { count: 40, intervene });
          const full = m.generate(src, { count: 40, intervene, cache: false });
          assert.deepEqual(cached, full, JSON.stringify(intervene));
          changed += cached.some((r, i) => r.some((v, j) => v !== plain[i][j])) ? 1 : 0;
        }
        assert.ok(changed >= 2, `only ${changed} of the edits changed an output`);
      } finally {
        m.free();
      }
    });

    test("cache option: argument check", () => {
      const m = Model.load(bytes("reverse-softmax"));
      try {
        const src = tasks.encode("reverse", "abc");
        assert.deepEqual(m.generate(src, { cache: true }), m.generate(src, { cache: false }));
        for (const bad of [0, 1, "false", null]) {
          assert.throws(() => m.generate(src, { cache: bad }), {
            name: "TypeError",
            message: `model.generate: cache must be true or false (got ${bad === null ? "null" : typeof bad === "string" ? JSON.stringify(bad) : bad})`,
          });
        }
      } finally {
        m.free();
      }
    });
  });
}
