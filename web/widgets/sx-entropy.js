// <sx-entropy>: Shannon and Tsallis alpha-entropy as filled contours over the simplex.
//   <sx-entropy alpha="1.5" scores="1.5 0 1" theme="auto"></sx-entropy>
// With scores, the mapping each entropy regularises is drawn on its panel: softmax on Shannon,
// alpha-entmax on Tsallis alpha (the argmax of <p, z> + H(p)). Hover a panel to read H(p).
import { SxElement, define, sheet, svgEl, htmlEl, rangeControl, svgPoint, fmt, MAPPINGS } from "./base.js";
import { fitBox } from "./fit-box.js";
import { tsallisEntropy } from "../lib/mappings.js";
import { ternaryCorners, ternaryXY, ternaryFromXY } from "./viz/ternary.js";
import { drawEntropy, themeColors, maxEntropy } from "./entropy-layer.js";

const S = 250, PW = 300, OX = 25, OY = 40, H = 300;

const CSS = sheet(`
.isolines path { stroke: var(--_bg); stroke-opacity: 0.55; stroke-width: 0.7; fill: none; }
.pt { stroke: var(--_bg); stroke-width: 1.5; }
.cursor { fill: none; stroke: var(--_fg); stroke-width: 1.5; }
.readout { font-variant-numeric: tabular-nums; margin: 4.8px 0 0; min-height: 1.4em; }
.controls { max-width: 448px; }
svg.picture { max-width: 680px; margin: 0 auto; }
.bar rect { stroke: none; }
`);

export class SxEntropy extends SxElement {
  static fitText = true;
  static fitBox = fitBox;
  static core = "mappings"; // the mappings alone: the small core (base.js ready())
  static spec = {
    alpha: { type: "number", default: 1.5, min: 0.1, max: 4 },
    scores: { type: "numbers", default: null, minLength: 3, maxLength: 3, min: -10, max: 10 },
    theme: { type: "enum", default: "auto", values: ["auto", "light", "dark"] },
  };
  static sheets = [CSS];

  build(body) {
    const svg = this._svg = svgEl("svg", { class: "picture", viewBox: `0 0 ${2 * PW + 10} ${H}`, role: "img", "aria-label": "Shannon and Tsallis entropy over the simplex" }, body);
    this._panels = [0, 1].map((k) => {
      const g = svgEl("g", { transform: `translate(${OX + k * (PW + 10)},${OY})` }, svg);
      const title = svgEl("text", { x: S / 2, y: -22, "text-anchor": "middle", "font-weight": 600 }, g);
      const bands = svgEl("g", {}, g);
      const c = ternaryCorners(S, 0);
      svgEl("path", { class: "edge", d: `M${c.map((p) => p.join(",")).join("L")}Z` }, g);
      [["A", 0, -8], ["B", -10, 14], ["C", 10, 14]].forEach(([t, dx, dy], i) => {
        svgEl("text", { x: c[i][0] + dx, y: c[i][1] + dy, "text-anchor": "middle" }, g).textContent = t;
      });
      const pt = svgEl("circle", { class: "pt", r: 7 }, g);
      const cursor = svgEl("circle", { class: "cursor", r: 5 }, g);
      cursor.style.display = "none";
      return { g, title, bands, pt, cursor, ox: OX + k * (PW + 10) };
    });
    // colour bar
    this._bar = svgEl("g", { class: "bar", transform: `translate(${OX}, ${H - 22})` }, svg);
    const ctl = htmlEl("div", { class: "controls", part: "controls" }, body);
    this._alpha = rangeControl(ctl, { label: "Tsallis α", min: 0.1, max: 4, step: 0.05, value: 1.5, format: (v) => fmt(v) });
    this._alpha.input.addEventListener("input", () => {
      this.alpha = Number(this._alpha.input.value);
      this.emit("change", { alpha: this.alpha });
    });
    this._readout = htmlEl("p", { class: "readout", part: "readout", "aria-live": "polite" }, body);
    svg.addEventListener("pointermove", (e) => this._hover(e));
    svg.addEventListener("pointerleave", () => { for (const p of this._panels) p.cursor.style.display = "none"; this._hoverText = ""; this._showReadout(); });
  }

  _hover(e) {
    const [x, y] = svgPoint(this._svg, e);
    const k = x > OX + PW ? 1 : 0, P = this._panels[k];
    const q = ternaryFromXY(x - P.ox, y - OY, S, 0);
    if (q.some((v) => v < -1e-9)) { P.cursor.style.display = "none"; return; }
    const p = q.map((v) => Math.max(0, v));
    const a = k === 0 ? 1 : this.alpha;
    const [h] = tsallisEntropy(p, { alpha: a });
    for (const o of this._panels) o.cursor.style.display = "none";
    const [cx, cy] = ternaryXY(p, S, 0);
    P.cursor.setAttribute("cx", cx); P.cursor.setAttribute("cy", cy); P.cursor.style.display = "";
    this._hoverText = `${k === 0 ? "Shannon" : `Tsallis α = ${fmt(a)}`}: H([${p.map((v) => fmt(v)).join(", ")}]) = ${h.toFixed(4)}`;
    this._showReadout();
  }

  _showReadout() {
    this._readout.textContent = this._hoverText || this._base || "";
  }

  render(s) {
    this._alpha.set(s.alpha);
    const color = themeColors(this);
    const key = `${s.alpha}|${s.theme}|${getComputedStyle(this).getPropertyValue("--_map-2")}`;
    const alphas = [1, s.alpha];
    if (key !== this._key) {
      this._key = key;
      alphas.forEach((a, k) => {
        const P = this._panels[k];
        drawEntropy(P.bands, { alpha: a, side: S, color, levels: 12 });
        P.title.textContent = k === 0 ? "Shannon entropy (α = 1)" : `Tsallis entropy, α = ${fmt(a)}`;
      });
      this._bar.replaceChildren();
      const w = 2 * PW - 2 * OX;
      for (let i = 0; i < 12; i++) svgEl("rect", { x: (w * i) / 12, y: 0, width: w / 12 + 0.5, height: 8, fill: color((i + 0.5) / 12) }, this._bar);
      svgEl("text", { x: 0, y: 20, class: "muted" }, this._bar).textContent = "0 (a corner: certain)";
      svgEl("text", { x: w, y: 20, "text-anchor": "end", class: "muted" }, this._bar).textContent = "maximum (the centre: uniform)";
    }
    const z = s.scores;
    const parts = [`max H: Shannon ${maxEntropy(1).toFixed(4)}, Tsallis α = ${fmt(s.alpha)} ${maxEntropy(s.alpha).toFixed(4)}`];
    this._panels.forEach((P, k) => {
      if (!z || (k === 1 && s.alpha < 1)) { P.pt.style.display = "none"; return; }
      const name = k === 0 ? "softmax" : "entmax";
      const p = MAPPINGS[name].run(z, { alpha: alphas[k] });
      const [x, y] = ternaryXY(p, S, 0);
      P.pt.setAttribute("cx", x.toFixed(2)); P.pt.setAttribute("cy", y.toFixed(2));
      P.pt.setAttribute("class", `pt m-${k === 0 ? "softmax" : "entmax"}`);
      P.pt.style.display = "";
      parts.push(`${k === 0 ? "softmax" : `${fmt(alphas[k])}-entmax`}(z) = [${Array.from(p, (v) => fmt(v, 3)).join(", ")}]`);
    });
    this._base = parts.join(" · ");
    this._showReadout();
  }
}

define("sx-entropy", SxEntropy);
