// cues.js - the attention-cues scene of <sx-cues> (pure, no DOM): objects with a colour and a
// shape, their keys, and the scores attention pooling maps to weights.
// Each object's key is one-hot over the features (5 colours, then 3 shapes). Two cues
// (the notes, "Attention Cues in Biology", after James 1890):
//   nonvolitional: no query; an object's saliency is how rare its features are in the scene,
//     sal_i = sum_f key_i[f] * (1 - count_f / n)   (the red cup among grey papers stands out);
//   volitional: a query q, one-hot over the features it names ("red", "square"), scored against
//     the keys by the dot product, q . key_i.
// The score of object i is gain * (sal_i, q . key_i, or their sum, by cue).

export const COLORS = Object.freeze(["red", "blue", "green", "yellow", "gray"]);
export const SHAPES = Object.freeze(["circle", "square", "triangle"]);
export const FEATURES = Object.freeze([...COLORS, ...SHAPES]);
/** Every object the scene may hold, "<colour>-<shape>". */
export const OBJECTS = Object.freeze(COLORS.flatMap((c) => SHAPES.map((s) => `${c}-${s}`)));
export const CUES = Object.freeze(["saliency", "query", "both"]);

/** The key of "<colour>-<shape>": a one-hot row over FEATURES (an Array of 0 / 1). */
export function keyOf(object) {
  const [color, shape] = String(object).split("-");
  const c = COLORS.indexOf(color), s = SHAPES.indexOf(shape);
  if (c < 0 || s < 0) throw new RangeError(`keyOf: object must be <colour>-<shape>, one of ${OBJECTS.join(", ")} (got "${String(object).slice(0, 30)}")`);
  return FEATURES.map((_, f) => (f === c || f === COLORS.length + s ? 1 : 0));
}

/** Each object's saliency: the sum over its features of 1 - (share of the scene holding it). */
export function saliency(objects) {
  const keys = objects.map(keyOf), n = keys.length;
  const count = FEATURES.map((_, f) => keys.reduce((s, k) => s + k[f], 0));
  return keys.map((k) => k.reduce((s, v, f) => s + v * (1 - count[f] / n), 0));
}

/** The query of a list of feature words: one-hot over FEATURES (each word once). */
export function queryOf(words) {
  const q = FEATURES.map(() => 0);
  for (const w of words) {
    const f = FEATURES.indexOf(w);
    if (f < 0) throw new RangeError(`queryOf: "${String(w).slice(0, 20)}" is not a feature (${FEATURES.join(", ")})`);
    q[f] = 1;
  }
  return q;
}

/** The score of each object under a cue: gain * (saliency, q . key, or both summed). */
export function cueScores(objects, { cue, query = [], gain = 1 }) {
  if (!CUES.includes(cue)) throw new RangeError(`cueScores: cue must be one of ${CUES.join(", ")} (got "${cue}")`);
  const sal = saliency(objects), q = queryOf(query);
  return objects.map((o, i) => {
    const dot = keyOf(o).reduce((s, v, f) => s + v * q[f], 0);
    return gain * ((cue === "query" ? 0 : sal[i]) + (cue === "saliency" ? 0 : dot));
  });
}
