// What a reader may type into <sx-attention> (web/widgets/viz/task-text.js), against the library's
// own task table: the characters listed short, the longest text, case folding where the alphabet
// asks for it, and the plain-words refusals (empty, too long: counted and never cut, a character
// outside the alphabet: named with its position).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { charList, taskLimits, readText, quote } from "../../web/widgets/viz/task-text.js";
import { builds } from "./helpers.mjs";

const [{ sx: { tasks } }] = await builds();

describe("task-text", () => {
  test("charList: runs of 3+ consecutive characters as first–last, a space named", () => {
    assert.deepEqual(charList([..."abcdefghij"]), ["a–j"]);
    assert.deepEqual(charList([..."abcdefghij|"]), ["a–j", "|"]);
    assert.deepEqual(charList([..." -0123456789ADFJMNO"]), ["space", "-", "0–9", "A", "D", "F", "J", "M–O"]);
    assert.deepEqual(charList([..."ab"]), ["a", "b"]);
    assert.deepEqual(charList([]), []);
  });

  test("taskLimits follows the task table", () => {
    for (const name of tasks.names()) {
      const lim = taskLimits(tasks, name), vocab = tasks.vocab(name).slice(3);
      assert.equal(lim.alphabet, vocab.join(""), name);
      assert.equal(lim.max, tasks.width(name) - 1, name);
      assert.deepEqual(lim.trained, [tasks.lengths(name).minSrc, tasks.lengths(name).maxSrc], name);
      assert.equal(lim.noCapitals, !/[A-Z]/.test(vocab.join("")), name);
      // every text of the longest length passes the library's own check
      assert.doesNotThrow(() => tasks.encode(name, vocab[0].repeat(lim.max)), name);
      assert.throws(() => tasks.encode(name, vocab[0].repeat(lim.max + 1)), RangeError, name);
    }
    assert.deepEqual(taskLimits(tasks, "reverse").chars, ["a–j"]);
  });

  test("readText: capitals folded where the alphabet asks for them; the answerable spelling first", () => {
    assert.deepEqual(readText(tasks, "reverse", "abcd"), { text: "abcd", error: null });
    assert.deepEqual(readText(tasks, "reverse", "ABCD"), { text: "abcd", error: null });
    assert.deepEqual(readText(tasks, "sort", "HeDiJ"), { text: "hedij", error: null });
    assert.deepEqual(readText(tasks, "after_marker", "AB|CD"), { text: "ab|cd", error: null });
    assert.deepEqual(readText(tasks, "date", "22 NOV 2026"), { text: "22 Nov 2026", error: null });
    assert.deepEqual(readText(tasks, "date", "22 nov 2026"), { text: "22 Nov 2026", error: null });
    assert.equal(tasks.answer("date", readText(tasks, "date", "1 FEB 2024").text), "2024-02-01");
    // a text the task takes but cannot answer stays as typed
    assert.deepEqual(readText(tasks, "date", "22 Nov 20"), { text: "22 Nov 20", error: null });
  });

  test("readText: refusals in plain words, never a cut", () => {
    assert.deepEqual(readText(tasks, "reverse", ""), { text: null, error: "The input is empty: type at least one character." });
    assert.deepEqual(readText(tasks, "reverse", "hello"), { text: null, error: "“l” (character 3) is not one of this task's characters: a–j." });
    assert.deepEqual(readText(tasks, "reverse", "ab cd"), { text: null, error: "a space (character 3) is not one of this task's characters: a–j." });
    assert.deepEqual(readText(tasks, "date", "22 November 2026"), { text: null, error: "“22 November 2026” has 16 characters; this task takes at most 11 (nothing was cut)." });
    const long = "a".repeat(50);
    assert.equal(readText(tasks, "reverse", long).error, `${quote(long)} has 50 characters; this task takes at most 11 (nothing was cut).`);
    assert.equal(quote(long), `“${"a".repeat(40)}…”`);
  });
});
