// mulberry32.js - a small seeded PRNG (pure): mulberry32(seed) returns next(), uniform in [0, 1),
// the same sequence everywhere. The pooling data uses it; so do the Node tests.
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
