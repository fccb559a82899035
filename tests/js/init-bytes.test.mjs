// init-bytes.test.mjs - init({ bytes }): the module handed over instead of fetched (what the
// single-file widget bundle does), the build read from the module itself, and the errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { freshModule, DIST } from "./helpers.mjs";

const simdBytes = await readFile(new URL("simplexity-simd.wasm", DIST));
const scalarBytes = await readFile(new URL("simplexity.wasm", DIST));

test("init({ bytes }) runs the given module; the bytes decide the build", async () => {
  for (const [tag, bytes, simd] of [["bytes-simd", simdBytes, true], ["bytes-scalar", scalarBytes, false]]) {
    const sx = await freshModule(tag);
    const info = await sx.init({ bytes: new Uint8Array(bytes) });
    assert.equal(info.simd, simd, tag);
    assert.deepEqual(Array.from(sx.sparsemax([1.5, 0, 1])), [0.75, 0, 0.25]);
    assert.deepEqual(await sx.init(), info); // memoised: a second init() is the same load
  }
});

test("init({ bytes }) accepts an ArrayBuffer and a matching simd flag", async () => {
  const sx = await freshModule("bytes-buffer");
  const ab = scalarBytes.buffer.slice(scalarBytes.byteOffset, scalarBytes.byteOffset + scalarBytes.length);
  assert.equal((await sx.init({ bytes: ab, simd: false })).simd, false);
});

test("init() errors: bad bytes type, url and bytes together, wrong build, garbage", async () => {
  const sx = await freshModule("bytes-errors");
  await assert.rejects(sx.init({ bytes: "abc" }),
    { name: "TypeError", message: 'init: bytes must be an ArrayBuffer or a typed array (got "abc")' });
  await assert.rejects(sx.init({ bytes: [0, 97] }),
    { name: "TypeError", message: "init: bytes must be an ArrayBuffer or a typed array (got an Array)" });
  await assert.rejects(sx.init({ bytes: scalarBytes, url: "x.wasm" }),
    { name: "TypeError", message: "init: pass url or bytes, not both" });
  await assert.rejects(sx.init({ bytes: scalarBytes, simd: true }),
    /simplexity: the given bytes is the scalar build, but the SIMD build was asked for/);
  await assert.rejects(sx.init({ bytes: new Uint8Array([1, 2, 3, 4]) }),
    /simplexity: cannot instantiate the given bytes: /);
  // a url that names the other build is refused too (info() would otherwise lie)
  await assert.rejects(sx.init({ simd: true, url: new URL("simplexity.wasm", DIST) }),
    /is the scalar build, but the SIMD build was asked for/);
  // and after all those failures, init() still works
  assert.equal((await sx.init({ bytes: simdBytes })).simd, true);
  assert.throws(() => sx.softmax([NaN]), { name: "SimplexityError" });
});
