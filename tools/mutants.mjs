// mutants.mjs - a test of the tests: apply small breaking changes one at a time to a copy of the
// tree, run the suites that should catch each, and list the changes that no suite caught.
//
//   node tools/mutants.mjs [--only id,id...] [--list] [--keep] [--timeout SECONDS]
//
// The changes are data (tests/mutants.mjs): a file, an exact text that must occur there exactly
// once, what replaces it, and the commands that must fail with it. The tree is copied once into
// build/mutants/tree (git's tracked files plus uncommitted edits, node_modules linked), built
// once; every command is run once on the unmutated copy (it must pass there); then each change is
// applied, its commands run, and the file restored. A change whose text
// is no longer found is an error (the list must follow the code, not rot). Exit status: 0 when every
// change was caught, 1 when some survived, 2 on a usage or set-up error. `make mutants` runs it.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WORK = path.join(ROOT, "build/mutants/tree");

function usage(msg) {
  if (msg) console.error(`mutants.mjs: ${msg}`);
  console.error("usage: node tools/mutants.mjs [--only id,id...] [--list] [--keep] [--timeout SECONDS]");
  process.exit(2);
}

function parseArgs(argv) {
  const o = { only: null, list: false, keep: false, timeout: 300 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--list") o.list = true;
    else if (a === "--keep") o.keep = true;
    else if (a === "--only" && i + 1 < argv.length) o.only = argv[++i].split(",").filter(Boolean);
    else if (a === "--timeout" && i + 1 < argv.length) {
      o.timeout = Number(argv[++i]);
      if (!(o.timeout > 0)) usage(`--timeout must be a positive number of seconds (got ${argv[i]})`);
    } else if (a === "--help" || a === "-h") usage();
    else usage(`unknown option ${a}`);
  }
  return o;
}

// Runs one shell command in the copy, in a process group of its own so that a timeout ends
// everything it started; resolves to { ok, timedOut, ms, tail } (tail: the last lines of output).
function run(cmd, timeoutS) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn("bash", ["-o", "pipefail", "-c", cmd], { cwd: WORK, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const keep = (d) => { out = (out + d).slice(-20000); };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid, "SIGKILL"); } catch { /* gone */ }
    }, timeoutS * 1000);
    child.on("close", (code) => {
      clearTimeout(timer);
      const tail = out.trimEnd().split("\n").slice(-6).join("\n");
      resolve({ ok: code === 0 && !timedOut, timedOut, ms: Date.now() - t0, tail });
    });
  });
}

// The copy: every file git knows (tracked, and untracked but not ignored) as it is now.
function copyTree() {
  const r = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    { cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) usage(`git ls-files failed: ${r.stderr}`);
  fs.rmSync(WORK, { recursive: true, force: true });
  for (const f of r.stdout.split("\0").filter(Boolean)) {
    const src = path.join(ROOT, f);
    if (!fs.existsSync(src) || fs.lstatSync(src).isDirectory()) continue;
    const dst = path.join(WORK, f);
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.copyFileSync(src, dst);
    const st = fs.statSync(src);
    fs.chmodSync(dst, st.mode);
    fs.utimesSync(dst, st.atime, st.mtime); // as old as the original: make rebuilds nothing extra
  }
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(WORK, "node_modules"));
}

function checkMutant(m) {
  for (const k of ["id", "file", "from", "to", "why"]) {
    if (typeof m[k] !== "string" || !m[k]) throw new Error(`mutant ${m.id ?? "?"}: "${k}" must be a non-empty string`);
  }
  if (!Array.isArray(m.run) || m.run.length === 0) throw new Error(`mutant ${m.id}: "run" must list commands`);
  const text = fs.readFileSync(path.join(ROOT, m.file), "utf8");
  const count = text.split(m.from).length - 1;
  if (count !== 1) throw new Error(`mutant ${m.id}: its text occurs ${count} times in ${m.file} (must be once): ${JSON.stringify(m.from)}`);
}

const opts = parseArgs(process.argv.slice(2));
const { MUTANTS, PREPARE } = await import(pathToFileURL(path.join(ROOT, "tests/mutants.mjs")).href);
const ids = new Set();
for (const m of MUTANTS) {
  if (ids.has(m.id)) usage(`two mutants are called ${m.id}`);
  ids.add(m.id);
  try { checkMutant(m); } catch (e) { usage(e.message); }
}
if (opts.only) for (const id of opts.only) if (!ids.has(id)) usage(`--only: no mutant is called ${id}`);
const chosen = MUTANTS.filter((m) => !opts.only || opts.only.includes(m.id));
if (opts.list) {
  for (const m of chosen) console.log(`${m.id.padEnd(28)} ${m.file}: ${m.why}`);
  process.exit(0);
}

console.log(`mutants: copying the tree to ${path.relative(ROOT, WORK)} and building it once`);
copyTree();
for (const cmd of PREPARE) {
  const r = await run(cmd, opts.timeout);
  if (!r.ok) { console.error(`mutants: the unmutated copy fails \`${cmd}\`:\n${r.tail}`); process.exit(2); }
}

// Every command must pass on the unmutated copy, or a mutant it "kills" proves nothing. (A
// mutant whose command breaks something else on purpose says so with baseline: false.)
const baseline = [...new Set(chosen.filter((m) => m.baseline !== false).flatMap((m) => m.run))];
console.log(`mutants: ${baseline.length} commands on the unmutated copy first`);
for (const cmd of baseline) {
  const r = await run(cmd, opts.timeout);
  if (!r.ok) { console.error(`mutants: \`${cmd}\` fails without any change:\n${r.tail}`); process.exit(2); }
}

const survivors = [];
const hangs = [];
let n = 0;
for (const m of chosen) {
  n++;
  const file = path.join(WORK, m.file);
  const orig = fs.readFileSync(file, "utf8");
  fs.writeFileSync(file, orig.replace(m.from, () => m.to));
  let killedBy = null;
  let ms = 0;
  let last = null;
  try {
    for (const cmd of m.run) {
      const r = await run(cmd, opts.timeout);
      ms += r.ms;
      last = r;
      if (!r.ok) { killedBy = r.timedOut ? `${cmd} (timed out)` : cmd; break; }
    }
  } finally {
    fs.writeFileSync(file, orig);
  }
  const secs = (ms / 1000).toFixed(0);
  if (killedBy && last?.timedOut) {
    // a hang is caught too (CI would stop on it), but not by a check: listed apart
    console.log(`[${n}/${chosen.length}] TIMEOUT  ${m.id} (${secs} s): \`${killedBy}\` ran past ${opts.timeout} s`);
    hangs.push(m);
  } else if (killedBy) console.log(`[${n}/${chosen.length}] killed   ${m.id} (${secs} s) by \`${killedBy}\``);
  else {
    console.log(`[${n}/${chosen.length}] SURVIVED ${m.id} (${secs} s): ${m.file}: ${m.why}`);
    survivors.push(m);
    if (last) console.log(last.tail.replace(/^/gm, "    "));
  }
}
if (!opts.keep) fs.rmSync(WORK, { recursive: true, force: true });

console.log(`\nmutants: ${chosen.length - survivors.length - hangs.length} of ${chosen.length} caught by a check` +
  (hangs.length ? `, ${hangs.length} made a suite hang (${hangs.map((m) => m.id).join(", ")})` : ""));
for (const m of survivors) console.log(`  survivor: ${m.id}: ${m.file}: ${m.why}`);
process.exit(survivors.length ? 1 : 0);
