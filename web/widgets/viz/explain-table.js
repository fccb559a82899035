// explain-table.js - the numbers and sentences <sx-explain> prints about "is attention
// explanation?" (pure, no DOM), from explain.js runExperiments' summaries.
//   formatTau(v)                      "+0.17", "−0.05", "n/a" (NaN: a constant row)
//   formatPct(v)                      "42%", "n/a"
//   experimentTable(summary)          [{ group, label, value }]: the small table of one model
//   experimentFindings(summaries, labels)
//                                     { tau, alignment, erasure, adversarial, sparse }: one computed
//                                     sentence per view, comparing the models (labels: kind -> name)
export const METHODS = Object.freeze([
  ["gradInput", "gradient × input"], ["integratedGradients", "integrated gradients"],
  ["leaveOneOut", "leave-one-out"], ["rollout", "rollout"],
]);
export const ORDERS = Object.freeze([
  ["attention", "by attention"], ["gradient", "by gradient"], ["attentionGradient", "by attention × gradient"], ["random", "at random"],
]);

export const formatTau = (v) => (Number.isFinite(v) ? `${v < 0 ? "−" : v > 0 ? "+" : ""}${Math.abs(v).toFixed(2)}` : "n/a");
export const formatPct = (v) => (Number.isFinite(v) ? `${Math.round(100 * v)}%` : "n/a");

/** The table of one model's summary: mean tau per method, the best head, erasure, adversarial. */
export function experimentTable(summary) {
  if (!summary || typeof summary !== "object" || !summary.tau) throw new TypeError("experimentTable: summary must be a runExperiments summary");
  const rows = [];
  for (const [m, label] of METHODS) {
    rows.push({ group: "mean τ(attention, ·)", label, value: formatTau(summary.tau[m] ? summary.tau[m].mean : NaN) });
  }
  const b = summary.alignment.best;
  rows.push({ group: "alignment", label: "best head's accuracy", value: b.accuracy >= 0 ? `${formatPct(b.accuracy)} (L${b.layer + 1} H${b.head + 1})` : "n/a" });
  for (const [o, label] of ORDERS) {
    const e = summary.erasure[o];
    const value = !e || !e.runs ? "n/a" : Number.isFinite(e.medianFraction)
      ? `${formatPct(e.medianFraction)} (${formatPct(e.flipRate)} flip)` : "never flips";
    rows.push({ group: "median keys erased to flip", label, value });
  }
  const a = summary.adversarial;
  rows.push({ group: "adversarial", label: a ? `median JSD, TV ≤ ${a.epsilon}` : "median JSD", value: a && Number.isFinite(a.medianJSD) ? `${a.medianJSD.toFixed(2)} nats` : "n/a" });
  return rows;
}

const strength = (t) => (!Number.isFinite(t) ? "undefined" : Math.abs(t) < 0.3 ? "weak" : Math.abs(t) < 0.6 ? "moderate" : "strong");
const list = (parts) => (parts.length < 2 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`);

/**
 * One sentence per view, computed from the summaries (kind -> summary; labels: kind -> its name):
 * what these models show, never a typed-in number.
 */
export function experimentFindings(summaries, labels = {}) {
  if (!summaries || typeof summaries !== "object") throw new TypeError("experimentFindings: summaries must be an object of runExperiments summaries");
  const kinds = Object.keys(summaries).filter((k) => summaries[k]);
  if (!kinds.length) return { tau: "", alignment: "", erasure: "", adversarial: "", sparse: "" };
  const name = (k) => labels[k] || k;
  const S = (k) => summaries[k];
  const loo = kinds.map((k) => [k, S(k).tau.leaveOneOut.mean]);
  const gi = kinds.map((k) => [k, S(k).tau.gradInput.mean]);
  const tau = `Mean τ between the attention rows and leave-one-out: ${list(loo.map(([k, t]) => `${formatTau(t)} (${name(k)})`))}; ` +
    `against gradient × input: ${list(gi.map(([k, t]) => `${formatTau(t)} (${name(k)})`))}. ` +
    `By Jain & Wallace's measure that is ${list([...new Set(loo.map(([, t]) => strength(t)))])} agreement.`;
  const alignment = `The best head's largest weight falls on the known source token ${list(kinds.map((k) => `${formatPct(S(k).alignment.best.accuracy)} of the time (${name(k)})`))}; ` +
    `leave-one-out's largest importance does ${list(kinds.map((k) => `${formatPct(S(k).alignment.methods.leaveOneOut)} (${name(k)})`))}.`;
  const er = kinds.map((k) => {
    const a = S(k).erasure.attention, r = S(k).erasure.random;
    const sooner = Number.isFinite(a.medianFraction) && Number.isFinite(r.medianFraction)
      ? a.medianFraction < r.medianFraction ? "sooner than" : a.medianFraction > r.medianFraction ? "later than" : "as soon as" : "compared with";
    return `${name(k)}: ${formatPct(a.medianFraction)} of the keys (${formatPct(a.flipRate)} of decisions flip at all), ${sooner} at random (${formatPct(r.medianFraction)})`;
  });
  const erasure = `Erasing keys by attention, the median decision flips after ${er.join("; ")}.`;
  const adv = kinds.filter((k) => S(k).adversarial && Number.isFinite(S(k).adversarial.medianJSD));
  const adversarial = adv.length
    ? `An attention row a median ${list(adv.map((k) => `${S(k).adversarial.medianJSD.toFixed(2)} nats (${name(k)})`))} of JSD away from the model's ` +
      `(ln 2 = 0.69 at most) changes the output by at most TV ${S(adv[0]).adversarial.epsilon}.`
    : "The adversarial search was not run.";
  let sparse = "";
  const base = kinds.find((k) => k === "softmax");
  const others = kinds.filter((k) => k !== "softmax");
  if (base && others.length) {
    const cmp = others.map((k) => {
      const dt = S(k).tau.leaveOneOut.mean - S(base).tau.leaveOneOut.mean;
      const dm = S(k).erasure.attention.medianFraction - S(base).erasure.attention.medianFraction;
      const dTau = !Number.isFinite(dt) ? "n/a" : Math.abs(dt) < 0.05 ? "about the same τ with leave-one-out" : `${dt > 0 ? "a higher" : "a lower"} τ with leave-one-out (${formatTau(dt)})`;
      const dEr = !Number.isFinite(dm) ? "" : Math.abs(dm) < 0.02 ? ", and its decisions flip after about as many erasures"
        : `, and its decisions flip after ${dm < 0 ? "fewer" : "more"} erasures (${dm < 0 ? "−" : "+"}${Math.round(100 * Math.abs(dm))} points)`;
      return `${name(k)} has ${dTau} than ${name(base)}${dEr}`;
    });
    sparse = `${cmp.join("; ")}.`;
  }
  return { tau, alignment, erasure, adversarial, sparse };
}
