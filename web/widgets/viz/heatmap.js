// heatmap.js - attention maps as heatmaps (pure, no DOM): which cells a query may see, how a
// weight is tinted (an exact zero is not a small weight: it gets no tint and a dot), token
// labels for the axes, and the layout of a grid of panels (layers x heads), each with its key
// labels on top and its query labels on the left.

// cellKind(kind, i, j, v) -> "masked" when query i may not see key j at all (the decoder's
// self-attention is causal: keys after the query are masked; padding is cropped away before),
// "zero" when the key was visible and the mapping gave it exactly 0, "weight" otherwise.
export function cellKind(kind, i, j, v) {
  if (kind === "decoder" && j > i) return "masked";
  return v === 0 ? "zero" : "weight";
}

// equalRuns(row, n) -> the runs of row[0 .. n): maximal blocks of adjacent entries whose values
// are nonzero and bitwise equal, as [start, end) pairs left to right. Zeros end a run and are in
// none; an entry unequal to both neighbours is a run of one. fusedmax gives one run per fused
// group of its support, a softmax row n runs (README "Shipped models": runs per row).
export function equalRuns(row, n) {
  const runs = [];
  for (let j = 0; j < n; j++) {
    if (row[j] === 0) continue;
    if (j > 0 && row[j - 1] === row[j]) runs[runs.length - 1][1] = j + 1;
    else runs.push([j, j + 1]);
  }
  return runs;
}

// heatLevel(v) -> the opacity of a weight's tint: 0 for an exact zero (and for anything that
// is not a positive number), else floor + (1 - floor) v^gamma, so the smallest non-zero weight
// still shows a visible tint (floor) and small weights are spread out (gamma < 1).
export function heatLevel(v, { floor = 0.12, gamma = 0.5 } = {}) {
  if (!(v > 0)) return 0;
  return floor + (1 - floor) * Math.min(1, v) ** gamma;
}

// tokenLabel(token) -> a one-character label for an axis: "^" for BOS, "$" for EOS, "␣" for a
// space, "" for padding, else the character itself. token is the vocabulary entry (a string,
// "<bos>" etc. for the special ids).
export function tokenLabel(token) {
  if (token === "<bos>") return "^";
  if (token === "<eos>") return "$";
  if (token === "<pad>" || token === undefined || token === null) return "";
  if (token === " ") return "␣";
  return String(token);
}

// heatmapLayout({ nq, nk, rows, cols, width, ... }) -> where the cells of a rows x cols grid of
// panels go, each panel nq x nk cells with labelW room for the query labels on its left, labelH
// for the key labels above and captionH for a caption below, panels gap apart and at least
// minPanel wide (room for the caption; the cells then sit at the panel's left). The cell size
// fills `width` and is clamped to [minCell, maxCell] (an integer number of px, so cells sit on
// whole pixels); the returned width is what the grid really uses.
//   { cell, width, height, panelW, panelH, origin(r, c) -> [x, y] of cell (0, 0),
//     cellXY(r, c, i, j) -> [x, y] of cell (i, j), hit(x, y) -> { r, c, i, j } or null }
export function heatmapLayout({ nq, nk, rows = 1, cols = 1, width = 720, top = 0, labelW = 16, labelH = 16,
  captionH = 30, gap = 14, minCell = 6, maxCell = 24, minPanel = 0 }) {
  for (const [name, v] of [["nq", nq], ["nk", nk], ["rows", rows], ["cols", cols]]) {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`heatmapLayout: ${name} must be a positive integer (got ${v})`);
  }
  const free = width - cols * labelW - (cols - 1) * gap;
  const cell = Math.max(minCell, Math.min(maxCell, Math.floor(free / (cols * nk))));
  const panelW = Math.max(labelW + nk * cell, minPanel), panelH = labelH + nq * cell + captionH;
  const origin = (r, c) => [c * (panelW + gap) + labelW, top + r * (panelH + gap) + labelH];
  return {
    cell, panelW, panelH,
    width: cols * panelW + (cols - 1) * gap,
    height: top + rows * panelH + (rows - 1) * gap,
    origin,
    cellXY(r, c, i, j) {
      const [x, y] = origin(r, c);
      return [x + j * cell, y + i * cell];
    },
    hit(x, y) {
      const c = Math.floor(x / (panelW + gap)), r = Math.floor((y - top) / (panelH + gap));
      if (r < 0 || r >= rows || c < 0 || c >= cols) return null;
      const [x0, y0] = origin(r, c);
      const j = Math.floor((x - x0) / cell), i = Math.floor((y - y0) / cell);
      return i >= 0 && i < nq && j >= 0 && j < nk ? { r, c, i, j } : null;
    },
  };
}
