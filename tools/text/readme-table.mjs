// readme-table.mjs - put a generated Markdown table into the README between
// <!-- NAME:start --> and <!-- NAME:end --> (`make text-baseline`: NAME text-baseline), or with
// --check fail unless the README already holds it (`make text-check`, part of `make test`).
//   node tools/text/readme-table.mjs --table build/text/baseline.md --readme README.md --block text-baseline [--check]
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const check = args.includes('--check');
if (check) args.splice(args.indexOf('--check'), 1);
const opt = {};
for (let i = 0; i < args.length; i += 2) {
  if (!['--table', '--readme', '--block'].includes(args[i]) || args[i + 1] === undefined) {
    console.error(`readme-table: bad argument '${args[i]}' (--table FILE --readme FILE --block NAME)`);
    process.exit(2);
  }
  opt[args[i].slice(2)] = args[i + 1];
}
const table = readFileSync(opt.table, 'utf8').trimEnd();
const text = readFileSync(opt.readme, 'utf8');
const start = `<!-- ${opt.block}:start -->`, end = `<!-- ${opt.block}:end -->`;
const a = text.indexOf(start), b = text.indexOf(end);
if (a < 0 || b < a) {
  console.error(`readme-table: ${opt.readme} has no ${start} ... ${end} block`);
  process.exit(1);
}
const updated = text.slice(0, a) + start + '\n' + table + '\n' + text.slice(b);
if (check) {
  if (updated !== text) {
    console.error(`readme-table: ${opt.readme}'s ${opt.block} table differs from ${opt.table}: run make ${opt.block} and commit the README`);
    process.exit(1);
  }
  console.log(`readme-table: ${opt.readme}'s ${opt.block} table matches ${opt.table}`);
} else {
  writeFileSync(opt.readme, updated);
  console.log(`readme-table: ${opt.table} -> ${opt.readme} (${opt.block})`);
}
