// color.js - colours as data (pure, no DOM): parse "#rgb", "#rrggbb", "rgb(r, g, b)" and
// "rgba(...)", and interpolate between stops in linear-light RGB (no muddy middle).

// parseColor(s) -> [r, g, b] in 0..255, or null when s is not one of the forms above.
export function parseColor(s) {
  if (typeof s !== "string") return null;
  const t = s.trim().toLowerCase();
  let m = t.match(/^#([0-9a-f]{3})$/);
  if (m) return [...m[1]].map((h) => parseInt(h + h, 16));
  m = t.match(/^#([0-9a-f]{6})$/);
  if (m) return [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16));
  m = t.match(/^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/);
  if (m) return [m[1], m[2], m[3]].map((v) => Math.max(0, Math.min(255, Math.round(Number(v)))));
  return null;
}

const toLin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
const toSrgb = (c) => 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);

// interpolateColors(stops) -> f(t in [0, 1]) -> "rgb(r, g, b)"; stops: [r, g, b] arrays,
// evenly spaced. t outside [0, 1] is clamped; NaN gives the first stop.
export function interpolateColors(stops) {
  if (!Array.isArray(stops) || stops.length < 1) throw new RangeError("interpolateColors: need at least one stop");
  const lin = stops.map((c) => c.map(toLin));
  return (t) => {
    if (!(t > 0)) t = 0;
    if (t > 1) t = 1;
    const x = t * (lin.length - 1), i = Math.min(lin.length - 2, Math.floor(x)), f = x - i;
    if (lin.length === 1) return `rgb(${stops[0].join(", ")})`;
    const c = [0, 1, 2].map((k) => Math.round(toSrgb(lin[i][k] + f * (lin[i + 1][k] - lin[i][k]))));
    return `rgb(${c.join(", ")})`;
  };
}
