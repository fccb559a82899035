// support.js - the support of a probability vector as a bitmask (pure): bit i is set when
// p[i] > 0. Used to find where a path's support changes.
export function supportMask(p, offset = 0, n = 3) {
  let m = 0;
  for (let i = 0; i < n; i++) if (p[offset + i] > 0) m |= 1 << i;
  return m;
}
