// pooling-data.js - the data of D2L's attention-pooling example (pure, seeded): n training
// inputs drawn uniformly in [0, 5) and sorted, targets y = 2 sin x + x^0.8 + noise (Gaussian,
// standard deviation `noise`), and test queries on the grid 0, 5 / count, ... with the noiseless
// truth there. The same seed gives the same picture on every load and in every build.
//   poolingData({ n = 50, seed = 1, noise = 0.5, count = 50 })
//     -> { x, y, xTest, yTest } (Float32Arrays; x sorted ascending)
import { mulberry32 } from "./mulberry32.js";

export const truth = (t) => 2 * Math.sin(t) + t ** 0.8;

export function poolingData({ n = 50, seed = 1, noise = 0.5, count = 50 } = {}) {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`poolingData: n must be an integer >= 1 (got ${n})`);
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`poolingData: count must be an integer >= 1 (got ${count})`);
  if (!(noise >= 0) || !Number.isFinite(noise)) throw new RangeError(`poolingData: noise must be finite and >= 0 (got ${noise})`);
  const next = mulberry32(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  const x = Float32Array.from({ length: n }, () => 5 * next()).sort();
  const y = x.map((t) => truth(t) + noise * normal());
  const xTest = Float32Array.from({ length: count }, (_, i) => (5 * i) / count);
  const yTest = xTest.map(truth);
  return { x, y, xTest, yTest };
}

// Mean squared error of a against b (same length, > 0).
export function mse(a, b) {
  if (a.length !== b.length || a.length === 0) throw new RangeError(`mse: lengths ${a.length} and ${b.length} must be equal and > 0`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] - b[i]) ** 2;
  return s / a.length;
}
