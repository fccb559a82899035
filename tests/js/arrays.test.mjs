// arrays.test.mjs - web/lib/arrays.js ("simplexity/arrays"), the attention viewer's file readers,
// on the files tests/fixtures/attention-files.mjs makes byte by byte: every good file read back
// bit for bit (each value the one written, -Infinity and exact zeros included), in C order
// (Fortran order transposed, big-endian swapped), as attention of four dimensions; every bad file
// refused with its message, naming the file. The fixtures are written to build/fixtures/ and read
// from there, as a reader's files are.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { writeFixtures, npy, zip, safetensors } from "../fixtures/attention-files.mjs";
import {
  readArrays, parseNpy, parseNpz, parseSafetensors, parseAttentionJSON, parseLabels, toAttention, ArrayFileError, crc32, halfToFloat,
} from "../../web/lib/arrays.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DIR = path.join(ROOT, "build/fixtures/attention");
const { good, bad, labels } = writeFixtures(DIR);
const read = (file) => new Uint8Array(readFileSync(path.join(DIR, file)));

/** Bit-exact equality of two lists of numbers (NaN == NaN, 0 != -0). */
function sameBits(got, want, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    if (!Object.is(got[i], want[i])) assert.fail(`${what}: value ${i} is ${got[i]}, ${want[i]} was written`);
  }
}

describe("arrays: the good fixtures, bit for bit", () => {
  for (const f of good) {
    test(f.file, async () => {
      const arrays = await readArrays(read(f.file), { name: f.file });
      const arr = f.key ? arrays.get(f.key) : [...arrays.values()][0];
      assert.deepEqual(arr.shape, f.expect.shape, "shape");
      assert.equal(arr.dtype, f.expect.dtype, "dtype");
      assert.equal(arr.data.constructor, f.expect.dtype === "float64" ? Float64Array : Float32Array, "array type");
      sameBits(arr.data, f.expect.data, f.file);
      const att = toAttention(arrays, { name: f.file, key: f.key, values: f.values });
      assert.deepEqual(att.shape, [...new Array(4 - f.expect.shape.length).fill(1), ...f.expect.shape], "as (layers, heads, queries, keys)");
      sameBits(att.data, f.expect.data.map(Math.fround), `${f.file} as float32`);
      if (f.expect.tokens) assert.deepEqual(att.tokens, f.expect.tokens);
    });
  }
  test("the fixtures hold exact zeros and masked scores", () => {
    assert.ok(good.filter((f) => f.expect.data.includes(0)).length >= 8, "exact zeros in most files");
    assert.ok(good.some((f) => f.expect.data.includes(-Infinity)), "-Infinity (masked) scores in one");
  });
});

describe("arrays: the bad fixtures, each with its message", () => {
  for (const f of bad) {
    test(f.file, async () => {
      await assert.rejects(async () => toAttention(await readArrays(read(f.file), { name: f.file }), { name: f.file, key: f.key, values: f.values }), (err) => {
        assert.ok(err instanceof ArrayFileError, `an ArrayFileError (got ${err.name}: ${err.message})`);
        assert.ok(err.message.startsWith(`${f.file}: `) || err.message.startsWith(`${f.file} `), `names the file: ${err.message}`);
        assert.equal(err.file, f.file);
        assert.match(err.message, f.error);
        return true;
      });
    });
  }
});

describe("arrays: each reader on its own", () => {
  test("parseNpy: Fortran order is transposed into C order; big-endian is swapped", () => {
    const v = [1, 2, 3, 4, 5, 6];
    sameBits(parseNpy(npy(v, [2, 3], { fortran: true })).data, v, "fortran");
    sameBits(parseNpy(npy(v, [3, 2], { descr: ">f8" })).data, v, "big-endian f8");
    assert.throws(() => parseNpy(new Uint8Array([1, 2, 3]), { name: "x.npy" }), /^ArrayFileError: x\.npy: is not a \.npy file/);
    assert.throws(() => parseNpy("abc"), /parseNpy: bytes must be a Uint8Array or an ArrayBuffer \(got string\)/);
  });
  test("halfToFloat: every float16 bit pattern against a float32 reference", () => {
    const f = new Float32Array(1), u = new Uint32Array(f.buffer);
    for (let h = 0; h < 65536; h++) { // the reference: float16 -> float32 bits by field widening
      const s = (h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
      if (e === 31) u[0] = s | 0x7f800000 | (m << 13);
      else if (e === 0 && m === 0) u[0] = s;
      else if (e === 0) { let mm = m, ee = 113; while (!(mm & 0x400)) { mm <<= 1; ee--; } u[0] = s | (ee << 23) | ((mm & 0x3ff) << 13); } else u[0] = s | ((e + 112) << 23) | (m << 13);
      if (!Object.is(Math.fround(halfToFloat(h)), f[0])) assert.fail(`0x${h.toString(16)}: ${halfToFloat(h)} vs ${f[0]}`);
    }
  });
  test("parseNpz: names without .npy, members in order; crc32 is zip's", async () => {
    const z = zip([["x.npy", npy([1, 2], [2])], ["y.npy", npy([3], [1], { descr: "<f8" })]], { deflate: true });
    const m = await parseNpz(z, { name: "z.npz" });
    assert.deepEqual([...m.keys()], ["x", "y"]);
    sameBits(m.get("y").data, [3], "y");
    assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  });
  test("parseSafetensors: __metadata__ is not a tensor; several tensors by name", () => {
    const m = parseSafetensors(safetensors([["a", "F32", [2], [0.25, 0]], ["b", "BF16", [1], [0.5]]]));
    assert.deepEqual([...m.keys()], ["a", "b"]);
    sameBits(m.get("b").data, [0.5], "b");
  });
  test("parseAttentionJSON: nested lists and { shape, data }", () => {
    assert.deepEqual(parseAttentionJSON("[[0.5, 0.5]]").shape, [1, 2]);
    assert.deepEqual(parseAttentionJSON('{"data": [[1, 0]]}').shape, [1, 2]);
    assert.throws(() => parseAttentionJSON('{"shape": [3], "data": [1, 0]}', { name: "j.json" }), /j\.json: data has 2 values, shape \[3\] needs 3/);
    assert.throws(() => parseAttentionJSON('{"shape": [1, 2], "data": [[1, 0, 0]]}', { name: "j.json" }), /j\.json: data has shape \[1,3\], not the shape \[1,2\] it declares/);
  });
  test("parseLabels: a JSON list or one label a line", () => {
    for (const f of labels) assert.deepEqual(parseLabels(read(f.file), { name: f.file }), f.labels, f.file);
    assert.deepEqual(parseLabels("a\r\nb\r\n"), ["a", "b"]);
    assert.throws(() => parseLabels("[1, {}]", { name: "l.json" }), /l\.json: the labels must be a list of strings/);
  });
  test("toAttention: the key, the shapes, the weights check", () => {
    const m = new Map([["a", { dtype: "float32", shape: [2, 2], data: new Float32Array([1, 0, 0.5, 0.5]) }]]);
    assert.deepEqual(toAttention(m, { name: "f" }).shape, [1, 1, 2, 2]);
    assert.throws(() => toAttention(m, { name: "f", key: "b" }), /f: has no array named "b" \(it holds a\)/);
    assert.throws(() => toAttention(m, { values: "probs" }), /toAttention: values must be "weights" or "scores" \(got "probs"\)/);
    const neg = new Map([["a", { dtype: "float64", shape: [1, 3], data: new Float64Array([1.5, -0.5, 0]) }]]);
    assert.throws(() => toAttention(neg, { name: "n.npy" }), /n\.npy: is not attention weights: layer 1 head 1 query 1 holds -0\.5, below 0/);
    assert.equal(toAttention(neg, { name: "n.npy", values: "scores" }).values, "scores");
    const zeroRow = new Map([["a", { dtype: "float32", shape: [2, 2], data: new Float32Array([0, 0, 0.5, 0.5]) }]]);
    assert.doesNotThrow(() => toAttention(zeroRow), "an all-zero row (a masked query) is weights");
  });
});
