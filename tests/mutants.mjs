// mutants.mjs - the curated breaking changes of `make mutants` (tools/mutants.mjs runs them).
// Each is one small change a careless edit could make: a threshold, a mask, an option forwarded,
// an argument check, a drawn element, a step of the test machinery itself. `from` must occur
// exactly once in `file`; `run` lists the commands (run in a built copy of the tree) of which at
// least one must fail with the change, and all pass without it (checked first, unless the
// mutant says baseline: false). A change that no command catches is a survivor: a hole in the tests.

// One C test program, rebuilt with the change (sanitized, as make test-c builds it).
const c = (name) => `make -s build/native/${name} && build/native/${name} > /dev/null`;
// The library and the widgets are tested from dist/: rebuild it first.
const js = (...files) => `make -s all > /dev/null && node --test ${files.map((f) => `tests/js/${f}`).join(" ")}`;
const browser = (file) => `make -s all > /dev/null && node tests/browser/${file}`;

// Built once in the copy before the first change, so each change rebuilds only what it touches.
export const PREPARE = [
  "make -s all > /dev/null",
  "make -s build/native/test_dense build/native/test_attention build/native/test_model build/native/test_positions " +
    "build/native/test_entmax build/native/test_pooling build/native/test_structured build/native/test_empty",
];

export const MUTANTS = [
  // ---------------------------------------------------------------- core (C)
  {
    id: "sparsemax-threshold", file: "core/src/sparsemax.c",
    from: "const double next = tau + (sum - 1.0) / cnt;", to: "const double next = tau + (sum - 0.9) / cnt;",
    why: "Michelot's step moves tau towards a sum of 0.9", run: [c("test_dense")],
  },
  {
    id: "attention-causal-mask", file: "core/src/attention.c",
    from: "if (w->causal && i + 1 < hi) hi = i + 1;", to: "if (w->causal && i + 2 < hi) hi = i + 2;",
    why: "the causal mask lets each query see one future key", run: [c("test_attention")],
  },
  {
    id: "checkpoint-checksum", file: "core/src/model.c",
    from: "if (fnv1a(buf, want - 4) != get_u32(buf + want - 4))", to: "if (0 && fnv1a(buf, want - 4) != get_u32(buf + want - 4))",
    why: "a corrupted checkpoint loads", run: [c("test_model")],
  },
  {
    id: "posenc-cos-column", file: "core/src/layers.c",
    from: "if (i + 1 < C) pe_t[i + 1] = (float)cos(angle);", to: "if (i + 1 < C) pe_t[i + 1] = (float)sin(angle);",
    why: "the odd positional-encoding columns are sines", run: [c("test_positions")],
  },
  {
    id: "alpha-grad-sign", file: "core/src/entmax.c",
    from: "dalpha[r] = (float)(v > FLT_MAX", to: "dalpha[r] = -(float)(v > FLT_MAX",
    why: "the gradient wrt alpha has the wrong sign", run: [c("test_entmax")],
  },
  {
    id: "softmax-normaliser", file: "core/src/softmax.c",
    from: "const v128 inv = vsplat(1.0f / sum);", to: "const v128 inv = vsplat(1.0f / (sum * 1.001f));",
    why: "softmax rows sum to 0.999", run: [c("test_dense")],
  },
  {
    id: "span-max-clamp", file: "core/src/pooling.c",
    from: "if (span_max > 0.0f && z > span_max) z = span_max;", to: "if (0 && span_max > 0.0f && z > span_max) z = span_max;",
    why: "the span mask ignores span_max", run: [c("test_pooling")],
  },
  {
    id: "fusedmax-lambda-zero", file: "core/src/fusedmax.c",
    from: "if (lambda == 0.0f) return sx_sparsemax(out, x, rows, n, temperature);",
    to: "if (lambda < 1e9f) return sx_sparsemax(out, x, rows, n, temperature);",
    why: "fusedmax ignores lambda (always sparsemax)", run: [c("test_structured")],
  },
  {
    id: "oscarmax-beta-rank", file: "core/src/oscarmax.c",
    from: "b[nb].sum = sc->item[k].v - beta * (double)(m - 1 - k);", to: "b[nb].sum = sc->item[k].v - 0.5 * beta * (double)(m - 1 - k);",
    why: "OSCAR's penalty at half its weight (an off-by-one in the rank, tried first, shifts every entry by beta: sparsemax is shift invariant, so that change was equivalent)",
    run: [c("test_structured")],
  },
  {
    id: "lambda-negative-check", file: "core/src/fusedmax.c",
    from: "if (lambda < 0.0f) return sx__fail(", to: "if (lambda < -1.0f) return sx__fail(",
    why: "a negative lambda in (-1, 0) is accepted", run: [c("test_structured")],
  },
  {
    id: "empty-call-null-output", file: "core/src/positions.c",
    from: "    if (positions == 0) return SX_OK;\n    if (!out) return sx__null(\"out\");",
    to: "    if (!out) return sx__null(\"out\");\n    if (positions == 0) return SX_OK;",
    why: "an empty call with a NULL output is refused (the rule of simplexity.h)", run: [c("test_empty")],
  },
  // ---------------------------------------------------------------- the library (JS)
  {
    id: "js-alpha-grad-temperature", file: "web/lib/mappings.js",
    from: "rows, n, alpha, t);\n  if (st !== 0) throw coreError(fn, st);\n  return copyOut(fn, \"out\", out, at, rows);",
    to: "rows, n, alpha, 1);\n  if (st !== 0) throw coreError(fn, st);\n  return copyOut(fn, \"out\", out, at, rows);",
    why: "entmaxAlphaGrad drops its temperature", run: [js("temperature.test.mjs")],
  },
  {
    id: "js-oscarmax-temperature", file: "web/lib/mappings.js",
    from: "wasm.sx_oscarmax(pRes, pX, cRows, cN, beta, cT)", to: "wasm.sx_oscarmax(pRes, pX, cRows, cN, beta, 1)",
    why: "oscarmax drops its temperature", run: [js("temperature.test.mjs")],
  },
  {
    id: "js-param-check", file: "web/lib/mappings.js",
    from: "if (strict ? !(v > min) : !(v >= min)) {", to: "if (strict ? !(v > min) : !(v >= min - 0.5)) {",
    why: "alpha = 0.75 (and every parameter just under its minimum) is accepted", run: [js("errors.test.mjs")],
  },
  {
    id: "js-simd-probe", file: "web/lib/loader.js",
    from: "simdSupported = WebAssembly.validate(SIMD_PROBE);", to: "simdSupported = false;",
    why: "the SIMD build is never chosen", run: [js("builds.test.mjs")],
  },
  {
    id: "js-jsd-lengths", file: "web/lib/explain.js",
    from: "if (p.length !== q.length) throw new RangeError(", to: "if (false) throw new RangeError(",
    why: "jsd / totalVariation accept unequal lengths", run: [js("experiments.test.mjs")],
  },
  {
    id: "js-splitof-argument-name", file: "web/lib/model/tasks.js",
    from: "textLength(fn, \"text\", src, 255);\n      const row = typeof src === \"string\" ? encodeRow(fn, task, src, Math.max(2, src.length + 1), \"text\")",
    to: "textLength(fn, \"text\", src, 255);\n      const row = typeof src === \"string\" ? encodeRow(fn, task, src, Math.max(2, src.length + 1), \"src\")",
    why: "tasks.splitOf's error names src[0] where the caller passed text", run: [js("model.test.mjs", "reliability.test.mjs")],
  },
  {
    id: "trainer-accuracy", file: "web/widgets/runtime/trainer.js",
    from: "this.right += exactRows(logits, this.model.config.vocab, tgt, c, width);", to: "this.right += c;",
    why: "the trainer's held-out accuracy counts every row as right", run: [js("viz-attention.test.mjs", "readme-models.test.mjs")],
  },
  // ---------------------------------------------------------------- the widgets (drawings)
  {
    id: "simplex-hot-edge", file: "web/widgets/sx-simplex.js",
    from: "for (const i of zeros) hot[i] = true;", to: "for (const i of zeros) hot[(i + 1) % 3] = true;",
    why: "sx-simplex highlights the wrong edge", run: [browser("drawings.mjs")],
  },
  {
    id: "two-choice-alphas", file: "web/widgets/sx-two-choice.js",
    from: "const series = s.alphas.map((a, k) => ({ a, cls:", to: "const series = s.alphas.map((a, k) => ({ a: 1, cls:",
    why: "every sx-two-choice curve is drawn with alpha = 1", run: [browser("drawings.mjs")],
  },
  {
    id: "entropy-band-alpha", file: "web/widgets/sx-entropy.js",
    from: "drawEntropy(P.bands, { alpha: a, side: S,", to: "drawEntropy(P.bands, { alpha: a === 1 ? 1 : a + 0.1, side: S,",
    why: "sx-entropy's Tsallis bands use the wrong alpha", run: [browser("drawings.mjs")],
  },
  {
    id: "trajectory-temperature", file: "web/widgets/sx-trajectory.js",
    from: "const p = this._run(name, z.map((v) => v * t), s);", to: "const p = this._run(name, z.map((v) => v), s);",
    why: "sx-trajectory's current points ignore t", run: [browser("drawings.mjs")],
  },
  // ---------------------------------------------------------------- the machinery
  {
    id: "bundle-without-worker", file: "tools/bundle.mjs",
    from: "...WORKERS.map((w) => `  ${w.setter}({ source, wasm });`),", to: "\"\",",
    why: "the single-file build ships without its training worker", run: [js("package-layout.test.mjs")],
  },
  {
    id: "bench-mismatch-exit", file: "bench/run.mjs",
    from: "`(the MISMATCH lines above; '!' in the table)\\n${verifyLines.join('\\n')}`);\n  process.exit(1);",
    to: "`(the MISMATCH lines above; '!' in the table)\\n${verifyLines.join('\\n')}`);\n  process.exit(0);",
    why: "make bench exits 0 on a mismatch",
    // the check: with sparsemax broken in the copy, the bench must report a MISMATCH and exit non-zero
    run: [
      "sed -i 's|const double next = tau + (sum - 1.0) / cnt;|const double next = tau + (sum - 0.9) / cnt;|' core/src/sparsemax.c && " +
        "make -s all build/bench/bench_native > /dev/null; st=0; " +
        "node bench/run.mjs --quick --rounds 1 --ms 5 --n 3,64 --out build/bench/mutant > build/bench/mutant.txt 2>&1 || st=$?; " +
        "sed -i 's|(sum - 0.9) / cnt|(sum - 1.0) / cnt|' core/src/sparsemax.c; make -s all build/bench/bench_native > /dev/null; " +
        "[ $st -ne 0 ] && grep -q MISMATCH build/bench/mutant.txt",
    ],
  },
  {
    id: "heatmap-zero-dot", file: "web/widgets/sx-heatmap.js",
    from: "else if (w[i * K + j] === 0) zeros", to: "else if (w[i * K + j] < 1e-2) zeros",
    why: "sx-heatmap marks small weights as exact zeros", run: [browser("heatmap.mjs")],
  },
  {
    id: "npy-fortran-order", file: "web/lib/arrays.js",
    from: "out[c] = data[f];", to: "out[c] = data[c];",
    why: "a Fortran-order .npy is read as if it were C order", run: [js("arrays.test.mjs")],
  },
  {
    id: "fuzz-short-exit", file: "Makefile",
    from: "the input is in $(FUZZ_DIR)/artifacts/\" >&2; exit 1; fi;", to: "the input is in $(FUZZ_DIR)/artifacts/\" >&2; fi;",
    why: "fuzz-short reports a crash and exits 0", run: ["make -s fuzz-selftest"],
  },
];
