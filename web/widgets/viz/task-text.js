// task-text.js - what a reader may type for one of the library's toy tasks (pure: no DOM; the
// library's `tasks` is passed in): the task's characters listed short, the longest text it takes,
// and a typed text read against them, in plain words. Everything comes from the task table
// (tasks.vocab, tasks.width, tasks.lengths, tasks.answer), nothing is written per task here.
//   charList(chars) -> ["a–j", "|"]: runs of 3+ consecutive characters as "first–last", "space"
//   taskLimits(tasks, task) -> { chars: charList of the alphabet, max (longest text taken),
//     trained: [min, max] source lengths of the examples, noCapitals (the alphabet has none) }
//   readText(tasks, task, raw) -> { text, error }: text is raw with its case folded where the
//     alphabet asks for it (a text whose characters are all there, in some case: as typed, all
//     small, Capitalised Words or ALL CAPITALS; the first of those the task answers, else the
//     first it takes), error null; or text null and error a sentence saying what is wrong
//     (empty, too long: counted, never cut; a character outside the alphabet: named).

const QUOTE_MAX = 40;

/** A text quoted for a message (“…”), cut at QUOTE_MAX characters with an ellipsis. */
export const quote = (s) => `“${s.length > QUOTE_MAX ? `${s.slice(0, QUOTE_MAX)}…` : s}”`;

/** The characters, short: each run of 3 or more consecutive codes as "first–last". */
export function charList(chars) {
  const out = [];
  for (let i = 0; i < chars.length;) {
    let j = i;
    while (j + 1 < chars.length && chars[j + 1].codePointAt(0) === chars[j].codePointAt(0) + 1) j++;
    if (j - i >= 2) { out.push(`${chars[i]}–${chars[j]}`); i = j + 1; }
    else { out.push(chars[i] === " " ? "space" : chars[i]); i++; }
  }
  return out;
}

/** What a task takes: its characters (listed short), the longest text, the trained lengths. */
export function taskLimits(tasks, task) {
  const alphabet = tasks.vocab(task).slice(3);
  const { minSrc, maxSrc } = tasks.lengths(task);
  return {
    alphabet: alphabet.join(""),
    chars: charList(alphabet),
    max: tasks.width(task) - 1, // the source and its EOS fill the model's width
    trained: [minSrc, maxSrc],
    noCapitals: !alphabet.some((c) => c !== c.toLowerCase()),
  };
}

const capitalised = (s) => s.toLowerCase().replace(/(^|[^\p{L}])(\p{Ll})/gu, (_, a, b) => a + b.toUpperCase());

function answers(tasks, task, text) {
  try { tasks.answer(task, text); return true; } catch { return false; }
}

/** raw read for task: { text, error } (see the top of the file). */
export function readText(tasks, task, raw) {
  const lim = taskLimits(tasks, task), have = new Set(lim.alphabet);
  const n = [...raw].length;
  if (n === 0) return { text: null, error: "The input is empty: type at least one character." };
  if (n > lim.max) {
    return { text: null, error: `${quote(raw)} has ${n} characters; this task takes at most ${lim.max} (nothing was cut).` };
  }
  const fits = (s) => [...s].every((c) => have.has(c));
  const ways = [...new Set([raw, raw.toLowerCase(), capitalised(raw), raw.toUpperCase()])].filter(fits);
  if (ways.length) return { text: ways.find((s) => answers(tasks, task, s)) ?? ways[0], error: null };
  const chars = [...raw];
  const at = chars.findIndex((c) => !have.has(c) && !have.has(c.toLowerCase()) && !have.has(c.toUpperCase()));
  const k = at >= 0 ? at : chars.findIndex((c) => !have.has(c));
  const c = chars[k];
  const name = c === " " ? "a space" : /\s/.test(c) ? `a ${JSON.stringify(c).slice(1, -1)}` : quote(c);
  return { text: null, error: `${name} (character ${k + 1}) is not one of this task's characters: ${lim.chars.join(" ")}.` };
}
