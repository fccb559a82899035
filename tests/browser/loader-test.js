// loader-test.js - runs in Chromium (opened by run.mjs): loads dist/simplexity.js as a page
// would, inits the SIMD and the scalar builds, a copy served with a wrong .wasm MIME type and a
// copy whose .wasm is missing (then retried), and records every check in window.__results.
const results = [];
const check = (name, ok, detail = "") => results.push({ name, ok: Boolean(ok), detail: String(detail) });
const close = (a, b, tol = 1e-6) => a.length === b.length && Array.from(a).every((v, i) => Math.abs(v - b[i]) <= tol);

async function mappings(label, sx) {
  const p = sx.sparsemax([1.5, 0, 1]);
  check(`${label}: sparsemax([1.5, 0, 1])`, close(p, [0.75, 0, 0.25]), Array.from(p));
  const s = sx.softmax([0, 0]);
  check(`${label}: softmax([0, 0])`, close(s, [0.5, 0.5]), Array.from(s));
  const tau = -1 / 3 - Math.sqrt(17 / 72);
  const e = sx.entmax([1.5, 0, 1], { alpha: 1.5 });
  check(`${label}: entmax 1.5`, close(e, [0, -0.75, -0.25].map((z) => (z - tau) ** 2), 2e-6), Array.from(e));
  const batch = new Float32Array(3 * 10000);
  for (let i = 0; i < batch.length; i++) batch[i] = Math.sin(i);
  const out = new Float32Array(batch.length);
  sx.entmax(batch, { n: 3, out });
  let worst = 0;
  for (let r = 0; r < 10000; r++) worst = Math.max(worst, Math.abs(out[3 * r] + out[3 * r + 1] + out[3 * r + 2] - 1));
  check(`${label}: 10000 batched rows on the simplex`, worst < 1e-5, `worst |sum - 1| = ${worst}`);
  const dx = sx.sparsemaxBackward([1.5, 0, 1], [1, 0, -1]);
  check(`${label}: sparsemaxBackward`, close(dx, [1, 0, -1]), Array.from(dx));
  try {
    sx.softmax([0, NaN]);
    check(`${label}: NaN is an error`, false, "no error");
  } catch (err) {
    check(`${label}: NaN is a SimplexityError`, err instanceof sx.SimplexityError && err.code === 2 && err.index === 1, err.message);
  }
}

async function main() {
  check("the page has WebAssembly SIMD", WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11])));

  const auto = await import("/dist/simplexity.js");
  const info = await auto.init();
  check("init() picks the SIMD build", info.simd === true, JSON.stringify(info));
  check("info() after init", auto.info().simd === true && auto.info().abi === 1 && auto.info().memoryBytes > 0, JSON.stringify(auto.info()));
  await mappings("default (SIMD)", auto);

  const scalar = await import("/second/dist/simplexity.js"); // another instance (run.mjs's /second/)
  check("init({ simd: false }) loads the scalar build", (await scalar.init({ simd: false })).simd === false);
  await mappings("scalar", scalar);
  const x = Float32Array.from({ length: 3 * 257 }, (_, i) => Math.cos(i * 1.7) * 3);
  const a = auto.entmax(x, { n: 3, alpha: 1.3 });
  const b = scalar.entmax(x, { n: 3, alpha: 1.3 });
  check("SIMD and scalar agree", close(a, b, 2e-6));

  const wrong = await import("/wrong-mime/dist/simplexity.js");
  check("a .wasm served as application/octet-stream still loads", (await wrong.init({ simd: true })).simd === true);
  await mappings("wrong MIME", wrong);

  const missing = await import("/missing/dist/simplexity.js");
  try {
    await missing.init({ simd: true });
    check("a missing .wasm rejects init()", false, "init() resolved");
  } catch (err) {
    check("a missing .wasm says what failed", /^simplexity: failed to fetch http:\/\/127\.0\.0\.1:\d+\/missing\/dist\/simplexity-simd\.wasm: HTTP 404/.test(err.message), err.message);
  }
  const retried = await missing.init({ url: "/dist/simplexity-simd.wasm" });
  check("init() can be retried after a failure", retried.simd === true);
  await mappings("retried", missing);
}

main().then(
  () => { window.__results = results; },
  (err) => { check("the page script ran to the end", false, err && err.stack || err); window.__results = results; },
);
