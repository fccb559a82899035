// model/sampling.js - drawing the next token from a distribution: a seedable random source
// (mulberry32) and sampleIndex with temperature, top-k and nucleus (top-p) truncation. Zeros
// stay zeros: temperature reweights p_i to p_i^(1/T) (for softmax outputs exactly softmax(z/T);
// for sparse outputs the same support, sharpened or flattened), top-k and top-p only remove
// entries, and the draw walks the nonzero entries only. Plain functions, no core.

/** A seeded source of uniform numbers in [0, 1) (mulberry32 over a 32-bit seed). */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The sampling weights of p (Float32Array or array, entries >= 0): entries below `from` and zeros
 * dropped, p^(1/temperature), the topK largest kept (ties: the lower index), then the smallest
 * most-probable set whose mass reaches topP. Returns { ids, w } (w sums to 1), most probable first.
 */
export function samplingWeights(p, { temperature = 1, topK = 0, topP = 1, from = 0 } = {}) {
  let ids = [];
  for (let i = from; i < p.length; i++) if (p[i] > 0) ids.push(i);
  ids.sort((a, b) => p[b] - p[a] || a - b);
  if (ids.length === 0) return { ids, w: [] };
  if (topK > 0 && ids.length > topK) ids = ids.slice(0, topK);
  const top = Math.log(p[ids[0]]);
  let w = ids.map((i) => Math.exp((Math.log(p[i]) - top) / temperature));
  let sum = w.reduce((s, x) => s + x, 0);
  w = w.map((x) => x / sum);
  if (topP < 1) {
    let mass = 0, k = 0;
    while (k < w.length && mass < topP) mass += w[k++];
    ids = ids.slice(0, k);
    w = w.slice(0, k);
    sum = w.reduce((s, x) => s + x, 0);
    w = w.map((x) => x / sum);
  }
  return { ids, w };
}

/** One index drawn from samplingWeights(p, opts) with u = rng() in [0, 1); -1 when p has no mass. */
export function sampleIndex(p, opts, rng) {
  const { ids, w } = samplingWeights(p, opts);
  if (ids.length === 0) return -1;
  const u = rng();
  let acc = 0;
  for (let k = 0; k < ids.length; k++) {
    acc += w[k];
    if (u < acc) return ids[k];
  }
  return ids[ids.length - 1]; // rounding: the sums fell short of u
}
