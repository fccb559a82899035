// The pure helpers behind <sx-explain> (web/widgets/viz/): the erasure curve drawn from a summary's
// fractions, the bar rows, the character diff of an erased output, the table and the computed
// sentences of the experiments; and the experiments session (explain-session.js) that the
// widget's worker runs, driven here in Node through its messages: progress, one summary per
// model, done, and a cancel that stops it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { DIST } from "./helpers.mjs";
import { erasureCurve, stepPath } from "../../web/widgets/viz/erasure-curve.js";
import { importanceBars } from "../../web/widgets/viz/importance-bars.js";
import { charDiff } from "../../web/widgets/viz/char-diff.js";
import { experimentTable, experimentFindings, formatTau, formatPct } from "../../web/widgets/viz/explain-table.js";

describe("erasureCurve", () => {
  test("a staircase from [0, 0] to [1, flipped / runs]: a vertical step at each fraction where decisions flipped", () => {
    const c = erasureCurve([0.5, null, 0.25, 0.5]);
    assert.deepEqual(c.points, [[0, 0], [0.25, 0], [0.25, 0.25], [0.5, 0.25], [0.5, 0.75], [1, 0.75]]);
    assert.equal(c.runs, 4);
    assert.equal(c.flipped, 3);
    assert.equal(c.median, 0.5);
  });
  test("a flip at 1 ends the curve there; the median of an even count is the mean of the middle two", () => {
    const c = erasureCurve([1, 0.2]);
    assert.deepEqual(c.points, [[0, 0], [0.2, 0], [0.2, 0.5], [1, 0.5], [1, 1]]);
    assert.ok(Math.abs(c.median - 0.6) < 1e-12);
  });
  test("no runs, or no flip: a flat line at 0 and a NaN median", () => {
    for (const f of [[], [null, null]]) {
      const c = erasureCurve(f);
      assert.deepEqual(c.points, [[0, 0], [1, 0]]);
      assert.ok(Number.isNaN(c.median));
    }
  });
  test("bad input is a TypeError or a RangeError naming the entry", () => {
    assert.throws(() => erasureCurve("0.5"), { name: "TypeError", message: /^erasureCurve: fractions must be an array/ });
    assert.throws(() => erasureCurve([0.5, 0]), { name: "RangeError", message: /^erasureCurve: fractions\[1\] must be a number in \(0, 1\] or null \(got 0\)/ });
    assert.throws(() => erasureCurve([1.5]), { name: "RangeError", message: /fractions\[0\]/ });
    assert.throws(() => erasureCurve([NaN]), { name: "RangeError" });
  });
  test("stepPath maps the points through the scales", () => {
    assert.equal(stepPath([[0, 0], [0.5, 0.5], [1, 1]], (x) => 100 * x, (y) => 50 - 50 * y), "M0 50L50 25L100 0");
  });
});

describe("importanceBars", () => {
  test("each value over the row's largest |value|, signed", () => {
    const { max, bars } = importanceBars([0.5, -1, 0, 0.25]);
    assert.equal(max, 1);
    assert.deepEqual(bars.map((b) => b.h), [0.5, -1, 0, 0.25]);
    assert.deepEqual(bars.map((b) => b.value), [0.5, -1, 0, 0.25]);
  });
  test("an all-zero row has zero heights; non-finite values count as 0", () => {
    assert.deepEqual(importanceBars(new Float32Array(3)).bars.map((b) => b.h), [0, 0, 0]);
    const r = importanceBars([NaN, 2, Infinity]);
    assert.equal(r.max, 2);
    assert.deepEqual(r.bars.map((b) => b.h), [0, 1, 0]);
    assert.throws(() => importanceBars(null), { name: "TypeError" });
  });
});

describe("charDiff", () => {
  test("position by position; extra characters are changed, missing ones dropped", () => {
    assert.deepEqual(charDiff("hgfedcba", "hggedcba").chars.map((c) => c.changed), [false, false, true, false, false, false, false, false]);
    assert.equal(charDiff("hgfedcba", "hggedcba").changed, 1);
    assert.deepEqual(charDiff("abc", "abc"), { chars: [{ ch: "a", changed: false }, { ch: "b", changed: false }, { ch: "c", changed: false }], dropped: 0, changed: 0 });
    const d = charDiff("abcd", "ab");
    assert.equal(d.dropped, 2);
    assert.equal(d.changed, 2);
    assert.deepEqual(charDiff("ab", "abx").chars.map((c) => c.changed), [false, false, true]);
    assert.throws(() => charDiff("a", null), { name: "TypeError" });
  });
});

// A summary as runExperiments returns it, with chosen numbers.
function fakeSummary({ loo = 0.1, gi = 0.2, attFrac = 0.25, randFrac = 0.5, jsd = 0.3, best = 0.9 } = {}) {
  const er = (f) => ({ runs: 4, flipRate: 0.75, medianFraction: f, medianMass: 0.5, fractions: [f, f, null, f] });
  return {
    task: "reverse", examples: 2, steps: 4, wrong: 0,
    tau: { gradInput: { perHead: [], mean: gi }, integratedGradients: { perHead: [], mean: 0.15 }, leaveOneOut: { perHead: [], mean: loo }, rollout: { perHead: [], mean: NaN } },
    alignment: { perHead: [], best: { layer: 1, head: 2, accuracy: best }, methods: { gradInput: 0.5, integratedGradients: 0.6, leaveOneOut: 0.7, rollout: 0.8 } },
    erasure: { attention: er(attFrac), gradient: er(0.3), attentionGradient: er(0.2), random: er(randFrac) },
    adversarial: { epsilon: 0.01, runs: 2, meanJSD: jsd, medianJSD: jsd, sameDecision: 1, values: [jsd, jsd] },
  };
}

describe("experimentTable and experimentFindings", () => {
  test("formatTau and formatPct", () => {
    assert.equal(formatTau(0.1749), "+0.17");
    assert.equal(formatTau(-0.05), "−0.05");
    assert.equal(formatTau(0), "0.00");
    assert.equal(formatTau(NaN), "n/a");
    assert.equal(formatPct(0.256), "26%");
    assert.equal(formatPct(NaN), "n/a");
  });
  test("the table: mean tau per method, the best head (1-based), erasure per order, the adversarial JSD", () => {
    const rows = experimentTable(fakeSummary());
    const get = (label) => rows.find((r) => r.label === label)?.value;
    assert.equal(get("leave-one-out"), "+0.10");
    assert.equal(get("rollout"), "n/a");
    assert.equal(get("best head's accuracy"), "90% (L2 H3)");
    assert.equal(get("by attention"), "25% (75% flip)");
    assert.equal(get("at random"), "50% (75% flip)");
    assert.equal(get("median JSD, TV ≤ 0.01"), "0.30 nats");
    assert.deepEqual([...new Set(rows.map((r) => r.group))], ["mean τ(attention, ·)", "alignment", "median keys erased to flip", "adversarial"]);
    const never = fakeSummary();
    never.erasure.random = { runs: 3, flipRate: 0, medianFraction: NaN, medianMass: NaN, fractions: [null, null, null] };
    never.adversarial = null;
    const r2 = experimentTable(never);
    assert.equal(r2.find((r) => r.label === "at random").value, "never flips");
    assert.equal(r2.find((r) => r.group === "adversarial").value, "n/a");
    assert.throws(() => experimentTable(null), { name: "TypeError" });
  });
  test("the sentences are computed from the summaries: other numbers, other words", () => {
    const labels = { softmax: "softmax", entmax15: "1.5-entmax" };
    const a = experimentFindings({ softmax: fakeSummary({ loo: 0.06 }), entmax15: fakeSummary({ loo: 0.5, attFrac: 0.125 }) }, labels);
    assert.match(a.tau, /\+0\.06 \(softmax\) and \+0\.50 \(1\.5-entmax\)/);
    assert.match(a.tau, /weak and moderate agreement/);
    assert.match(a.erasure, /softmax: 25% of the keys .* sooner than at random \(50%\)/);
    assert.match(a.erasure, /1\.5-entmax: 13% of the keys/);
    assert.match(a.adversarial, /0\.30 nats \(softmax\) and 0\.30 nats \(1\.5-entmax\)/);
    assert.match(a.sparse, /1\.5-entmax has a higher τ with leave-one-out \(\+0\.44\) than softmax, and its decisions flip after fewer erasures \(−13 points\)/);
    const b = experimentFindings({ softmax: fakeSummary({ loo: 0.8, attFrac: 0.75 }) }, labels);
    assert.match(b.tau, /strong agreement/);
    assert.match(b.erasure, /later than at random/);
    assert.equal(b.sparse, "");
    assert.deepEqual(experimentFindings({}), { tau: "", alignment: "", erasure: "", adversarial: "", sparse: "" });
  });
});

describe("explain-session: the experiments worker's protocol, in Node", async () => {
  const { explainSession } = await import(new URL("explain-session.js", DIST).href);
  const bytes = async (kind) => new Uint8Array(await readFile(new URL(`models/reverse-${kind}.sxm`, DIST)));
  const drive = (msg, onMsg = () => {}) => new Promise((resolve) => {
    const got = [];
    const session = explainSession({ post: (m) => { got.push(m); onMsg(m, session); if (m.type === "done" || m.type === "error") resolve(got); } });
    session.receive(msg);
  });

  test("run: started, progress after each example, one result per model, done with the summaries", async () => {
    const got = await drive({ type: "run", task: "reverse", count: 2, seed: 1, epsilon: 0.01, igSteps: 4,
      models: [{ kind: "softmax", bytes: await bytes("softmax") }, { kind: "entmax15", bytes: (await bytes("entmax15")).buffer }] });
    assert.equal(got[0].type, "started");
    const progress = got.filter((m) => m.type === "progress");
    assert.deepEqual(progress.map((m) => [m.kind, m.index, m.done, m.total]), [["softmax", 0, 1, 2], ["softmax", 0, 2, 2], ["entmax15", 1, 1, 2], ["entmax15", 1, 2, 2]]);
    assert.deepEqual(got.filter((m) => m.type === "result").map((m) => m.kind), ["softmax", "entmax15"]);
    const done = got[got.length - 1];
    assert.equal(done.type, "done");
    assert.equal(done.cancelled, false);
    assert.deepEqual(Object.keys(done.summaries), ["softmax", "entmax15"]);
    assert.equal(done.summaries.entmax15.task, "reverse");
    assert.ok(done.summaries.softmax.erasure.attention.fractions.length > 0);
  });

  test("cancel stops before the next example and posts done with what finished", async () => {
    const got = await drive({ type: "run", task: "reverse", count: 40, seed: 1, epsilon: 0.01, igSteps: 4, models: [{ kind: "softmax", bytes: await bytes("softmax") }] },
      (m, session) => { if (m.type === "progress" && m.done === 1) session.receive({ type: "cancel" }); });
    const done = got[got.length - 1];
    assert.equal(done.type, "done");
    assert.equal(done.cancelled, true);
    assert.deepEqual(done.summaries, {});
    assert.ok(got.filter((m) => m.type === "progress").length < 40, "stopped early");
  });

  test("a bad message or bad model bytes post an error", async () => {
    const a = await drive({ type: "nonsense" });
    assert.match(a[0].message, /^explain-session: unknown message type "nonsense"/);
    const b = await drive({ type: "run", task: "reverse", count: 1, models: [{ kind: "softmax", bytes: new Uint8Array(10) }] });
    assert.equal(b[b.length - 1].type, "error");
  });
});
