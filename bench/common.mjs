// common.mjs - what run.mjs, its engine workers and bench_native.c agree on: the mappings and
// their parameters, the batch shapes, the input generator (bit-identical to bench_native.c's);
// and what run.mjs and attention.mjs share: the worker engine, the command-line checks, the
// median, the markdown table and the other processes' share of the CPU.
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
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

// The median of the finite values of a (null when there is none).
export const median = (a) => {
  const s = (a ?? []).filter((v) => v != null && isFinite(v)).sort((p, q) => p - q);
  if (!s.length) return null;
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : 0.5 * (s[h - 1] + s[h]);
};

// A markdown table: the first `left` columns left-aligned, the others right-aligned.
export function mdTable(head, rows, left) {
  const w = head.map((h, j) => Math.max(h.length, ...rows.map((r) => String(r[j]).length)));
  const line = (r) => `| ${r.map((c, j) => (j < left ? String(c).padEnd(w[j]) : String(c).padStart(w[j]))).join(' | ')} |`;
  return [line(head), `|${w.map((x, j) => (j < left ? ':' : '-') + '-'.repeat(x) + (j < left ? '-' : ':')).join('|')}|`, ...rows.map(line)].join('\n');
}

// Other processes' CPU use while a bench runs: (all busy CPU time) - (ours, with waited-for
// children), as a share of the machine, from two snapshots. The machines are shared: a busy
// neighbour spoils absolute figures (the ratios, measured in the same round, suffer less).
export function cpuSnapshot() {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const busy = cpu.reduce((a, b) => a + b, 0) - cpu[3] - (cpu[4] || 0);   // minus idle, iowait
    const st = readFileSync('/proc/self/stat', 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ').map(Number);   // f[11..14]: utime stime cutime cstime
    return { busy, self: f[11] + f[12] + f[13] + f[14], t: performance.now() };
  } catch { return null; }
}
export function foreignLoad(a, b) {
  if (!a || !b) return null;
  const hz = 100, wall = (b.t - a.t) / 1000;
  return Math.max(0, (b.busy - a.busy - (b.self - a.self)) / hz / (wall * os.cpus().length));
}

// A bench's command line: node's parseArgs in strict mode (an unknown option, a positional
// argument, an option without its value or a flag given a value is an error), then `check(values,
// bad)` checks the values, calling bad(message) on the first wrong one. An error prints
// "<script>: <message>" and the usage, and exits with code 2; --help prints the usage, exit 0.
export function commandLine(script, usage, options, check) {
  const bad = (msg) => {
    console.error(`${script}: ${msg}\n${usage}`);
    process.exit(2);
  };
  let values;
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    bad(err.message.replace(/\s*\n\s*/g, ' '));
  }
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  return check(values, bad);
}

// Value checks for commandLine: each returns the value or calls bad() with what is wrong.
export function wholeNumber(v, name, bad) {
  if (!/^[1-9][0-9]*$/.test(v)) bad(`${name} takes a whole number >= 1 (got '${v}')`);
  return Number(v);
}
export function positiveNumber(v, name, bad) {
  const x = /^[0-9]+(\.[0-9]+)?$/.test(v) ? Number(v) : NaN;
  if (!(x > 0)) bad(`${name} takes a number > 0 (got '${v}')`);
  return x;
}
// A comma-separated list whose items (after `parse`) are all in `allowed`.
export function listOf(v, name, allowed, bad, parse = String) {
  const items = v.split(',').map((s) => s.trim());
  const wrong = items.filter((s) => s === '' || !allowed.includes(parse(s)));
  if (wrong.length) bad(`${name} takes a comma-separated list of ${allowed.join(', ')} (got '${v}')`);
  return [...new Set(items.map(parse))];
}
// A file that must exist (an explicit --api, --native or --peak).
export function existingFile(v, name, bad) {
  const p = path.resolve(v);
  if (!existsSync(p) || !statSync(p).isFile()) bad(`${name}: no such file ${v}`);
  return p;
}
// A folder for the outputs: absent (it is made) or a folder.
export function outputDir(v, name, bad) {
  const p = path.resolve(v);
  if (existsSync(p) && !statSync(p).isDirectory()) bad(`${name}: ${v} exists and is not a folder`);
  return p;
}
