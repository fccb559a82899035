// fit-box.js - a widget's viewBox grown to hold its text once that text is scaled up on a narrow
// screen (`static fitBox = fitBox` on a fitText class; phone.js calls it): only the widgets whose
// labels would run past their pictures' edges there carry it.

// At most GROW times the widget's own box: a line longer than the picture is wide never fits
// this way (it grows with the box); the widget must wrap or move it.
const GROW = 1.3;

// Sets --_k (by setK, phone.js's, passed in: importing it would fetch phone.js on a desktop too)
// and the viewBox: the widget's own (kept in svg._vb), grown to the drawing's bounding box while
// the text is scaled up (--_k > 1) and the drawing runs past it. Text grows with --_k, so a few
// rounds (a forced layout each) reach the fixed point; `fresh` starts from the widget's own box
// (the svg was resized, or the widget set a new box), else from the last fitted one.
export function fitBox(svg, fresh, setK) {
  const cur = svg.getAttribute("viewBox");
  if (cur !== svg._fit) { svg._vb = cur; fresh = true; }
  const base = svg._vb.split(/[\s,]+/).map(Number);
  let box = fresh ? base : svg._fit.split(" ").map(Number);
  for (let round = 0; round < 4; round++) {
    svg.setAttribute("viewBox", box.join(" "));
    const k = setK(svg);
    if (!(k > 1) || svg.getAttribute("preserveAspectRatio") === "none") break;
    const next = grown(base, svg.getBBox());
    if (next.every((v, i) => Math.abs(v - box[i]) < 1)) break;
    box = next;
  }
  svg._fit = svg.getAttribute("viewBox");
}

// [x, y, w, h] holding the box `base` and the bounding box b, each side at most GROW times base's.
function grown([x, y, w, h], b) {
  const x1 = Math.min(x + w * GROW, Math.max(x + w, Math.ceil(b.x + b.width)));
  const y1 = Math.min(y + h * GROW, Math.max(y + h, Math.ceil(b.y + b.height)));
  const x0 = Math.max(Math.min(x, Math.floor(b.x)), x1 - w * GROW), y0 = Math.max(Math.min(y, Math.floor(b.y)), y1 - h * GROW);
  return [x0, y0, x1 - x0, y1 - y0];
}
