// heat-levels.js - a weight matrix as a few SVG paths (pure, no DOM): each weight is quantised
// to a level, 0 for an exact zero (drawn as no cell at all: the panel's background shows, so a
// zero never looks like a small weight) and 1..levels for the rest, relative to the largest
// weight (gamma < 1 spreads the small ones); each level is then one <path> of rectangles, with
// runs of equal level in a row merged. A 50 x 50 heatmap is `levels` elements, not 2500.
//   weightLevels(w, { levels = 8, gamma = 0.5, max }) -> { level: Uint8Array, max, zeros }
//     (max: the weight of the top level; default the largest weight, 1 for weights on an absolute scale)
//   levelPaths(level, rows, cols, { x0 = 0, y0 = 0, cw = 1, ch = 1, levels = 8 }) -> [d of level 1, ... d of level L]
//   levelOpacity(k, levels, floor = 0.15) -> fill-opacity of level k (0 for level 0)

export function weightLevels(w, { levels = 8, gamma = 0.5, max: top } = {}) {
  if (!Number.isInteger(levels) || levels < 1 || levels > 255) throw new RangeError(`weightLevels: levels must be an integer in [1, 255] (got ${levels})`);
  if (top !== undefined && !(top > 0 && top < Infinity)) throw new RangeError(`weightLevels: max must be a finite number > 0 (got ${top})`);
  let max = top ?? 0, zeros = 0;
  if (top === undefined) for (let i = 0; i < w.length; i++) if (w[i] > max) max = w[i];
  const level = new Uint8Array(w.length);
  for (let i = 0; i < w.length; i++) {
    const v = w[i];
    if (!(v > 0)) { zeros += v === 0 ? 1 : 0; continue; } // 0, negative or NaN: no cell
    level[i] = Math.max(1, Math.min(levels, Math.ceil(levels * (v / max) ** gamma)));
  }
  return { level, max, zeros };
}

export function levelPaths(level, rows, cols, { x0 = 0, y0 = 0, cw = 1, ch = 1, levels = 8 } = {}) {
  if (level.length !== rows * cols) throw new RangeError(`levelPaths: level.length (${level.length}) must equal rows * cols (${rows * cols})`);
  const d = Array.from({ length: levels }, () => []);
  const f = (v) => Number(v.toFixed(2));
  for (let i = 0; i < rows; i++) {
    let j = 0;
    while (j < cols) {
      const k = level[i * cols + j];
      let e = j + 1;
      while (e < cols && level[i * cols + e] === k) e++;
      if (k > 0 && k <= levels) d[k - 1].push(`M${f(x0 + j * cw)} ${f(y0 + i * ch)}h${f((e - j) * cw)}v${f(ch)}h${f(-(e - j) * cw)}z`);
      j = e;
    }
  }
  return d.map((parts) => parts.join(""));
}

export function levelOpacity(k, levels, floor = 0.15) {
  if (!(k > 0)) return 0;
  return floor + ((1 - floor) * Math.min(k, levels)) / levels;
}
