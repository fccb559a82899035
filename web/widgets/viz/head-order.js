// head-order.js - the heads of a (layers, heads, queries, keys) weight array, measured and sorted
// (pure): per head its mean row entropy in nats and the fraction of its weights that are exactly 0
// (viz/attention-stats.js's headStats, every key visible), then the order the heatmaps are drawn
// in: "none" (layer by layer, head by head), "entropy" (lowest first: the most peaked heads) or
// "sparsity" (most zeros first), ties kept in file order.
//   headOrder(weights, [L, H, Q, K], { sort, layers }) -> [{ layer, head, entropy, zeros }] (0-based)
import { headStats } from "./attention-stats.js";

export function headOrder(weights, [L, H, Q, K], { sort = "none", layers = null } = {}) {
  const out = [];
  for (let l = 0; l < L; l++) {
    if (layers && !layers.includes(l)) continue;
    const stats = headStats(weights.subarray(l * H * Q * K, (l + 1) * H * Q * K), { heads: H, nq: Q, nk: K, kind: "encoder" });
    stats.forEach((s, h) => out.push({ layer: l, head: h, entropy: s.entropy, zeros: s.zeros }));
  }
  if (sort === "entropy") out.sort((a, b) => a.entropy - b.entropy);
  else if (sort === "sparsity") out.sort((a, b) => b.zeros - a.zeros);
  else if (sort !== "none") throw new RangeError(`headOrder: sort must be "none", "entropy" or "sparsity" (got ${JSON.stringify(String(sort)).slice(0, 30)})`);
  return out;
}
