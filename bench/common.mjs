// common.mjs - what run.mjs, its engine workers and bench_native.c agree on: the mappings and
// their parameters, the batch shapes, the input generator (bit-identical to bench_native.c's).
import { Worker } from 'node:worker_threads';

export const MAPS = ['softmax', 'sparsemax', 'entmax15', 'entmax', 'fusedmax', 'oscarmax'];
export const NS = [3, 64, 512, 4096];

// The one parameter of each mapping, as the JS API's option name and value (bench_native.c gets
// the same values on its command line).
export const PARAMS = {
  softmax: null,
  sparsemax: null,
  entmax15: null,
  entmax: { name: 'alpha', value: 1.3 },      // not 1, 1.5 or 2: the bisection path
  fusedmax: { name: 'lambda', value: 0.5 },
  oscarmax: { name: 'beta', value: 0.1 },
};

export const LABELS = {
  softmax: 'softmax', sparsemax: 'sparsemax', entmax15: 'entmax15',
  entmax: 'entmax a=1.3', fusedmax: 'fusedmax l=0.5', oscarmax: 'oscarmax b=0.1',
};

// Rows per call: about 64k floats per batch; n = 3 is the batched small-vector case.
export const FLOATS = 65536;
export const ROWS3 = 100000;
export const rowsFor = (n) => (n === 3 ? ROWS3 : Math.max(1, Math.floor(FLOATS / n)));

// mulberry32: uniform in [0, 1).
export function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// rows * n scores, mean 0, standard deviation 1 (sum of four uniforms; exact in double, so the
// same floats as bench_native.c's fill_scores).
export function scores(n) {
  const count = rowsFor(n) * n, x = new Float32Array(count), u = mulberry32(1000 + n);
  for (let i = 0; i < count; i++) x[i] = (u() + u() + u() + u() - 2) * Math.sqrt(3);
  return x;
}

// The checksum bench_native.c prints: sum over the batch of p[i] * (i % 7 + 1).
export function checksum(p) {
  let s = 0;
  for (let i = 0; i < p.length; i++) s += p[i] * (i % 7 + 1);
  return s;
}

// Calls `call` until `ms` milliseconds have passed; rows per second.
export function measure(call, rows, ms) {
  let calls = 0, t;
  const t0 = performance.now();
  do { call(); calls++; t = performance.now(); } while (t - t0 < ms);
  return (calls * rows) / ((t - t0) / 1000);
}

// An engine in a worker thread (each its own module instance of the library): `ready` resolves
// on the worker's { ready: true }, `request(msg)` posts one message and resolves with the reply.
export class WorkerEngine {
  constructor(url, workerData) {
    this.kind = workerData.kind;
    this.worker = new Worker(url, { workerData });
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('error', reject);
      this.worker.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
      this.worker.once('message', (m) => (m.ready ? resolve() : reject(new Error(m.error))));
    });
  }
  request(msg) {
    return new Promise((resolve, reject) => {
      this.worker.once('message', (m) => (m.error ? reject(new Error(m.error)) : resolve(m)));
      this.worker.postMessage(msg);
    });
  }
  close() { return this.worker.terminate(); }
}
