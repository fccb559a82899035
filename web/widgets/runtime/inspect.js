// inspect.js - run a Model on one input and collect what the attention heatmaps show (no DOM):
// the greedy output, the reference answer, every attention map cropped to the real tokens, the
// per-head alphas and spans, and the axis labels. The <sx-attention> widget calls it on the
// main thread for the shipped models, train-worker.js in the worker for the model it trains,
// and the result is plain data (posted between them as is, the maps' buffers transferred).
//
//   inspect(model, tasks, task, text) -> {
//     task, text, output, answer, correct (output === answer), note (why there is no answer),
//     srcLabels: keys of the encoder self and cross maps (the characters and EOS),
//     decLabels: keys of the decoder self map (BOS and the output: the decoder's inputs),
//     outLabels: queries of the decoder self and cross maps (the token each step emits),
//     maps: [{ kind, layer, heads, nq, nk, data: Float32Array [head][query][key], alpha: [], span: [] }] }
// A bad text throws the RangeError of tasks.encode (the caller shows its message).
export function inspect(model, tasks, task, text) {
  const src = tasks.encode(task, text);
  const [out] = model.generate([src]);
  const vocab = tasks.vocab(task);
  const EOS = vocab.indexOf("<eos>");
  const output = tasks.decode(task, out);
  // The decoder's inputs are BOS and the output; the step after the last input emits EOS. A row
  // without EOS (the model ran out of length) is shown whole.
  const eos = out.indexOf(EOS);
  const dec = out.subarray(0, eos > 0 ? eos : out.length);
  const emitted = Array.from(dec, (_, i) => (i + 1 < out.length ? out[i + 1] : -1));
  const { attention } = model.forward([src], [dec]);
  const ns = text.length + 1, nd = dec.length;
  const maps = attention.map((a) => {
    const [, H, Tq, Tk] = a.shape;
    const nq = a.kind === "encoder" ? ns : nd, nk = a.kind === "decoder" ? nd : ns;
    const data = new Float32Array(H * nq * nk);
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < nq; i++) data.set(a.data.subarray((h * Tq + i) * Tk, (h * Tq + i) * Tk + nk), (h * nq + i) * nk);
    }
    return { kind: a.kind, layer: a.layer, heads: H, nq, nk, data, alpha: a.alpha, span: a.span };
  });
  let answer = null, note = "";
  try {
    answer = tasks.answer(task, text);
  } catch (err) {
    note = err.message.replace(/^tasks\.answer: (row 0: )?/, ""); // e.g. "'31 Feb 2020' is not a valid date"
  }
  return {
    task, text, output, answer, correct: answer !== null && output === answer, note,
    srcLabels: [...text, "<eos>"],
    decLabels: Array.from(dec, (t) => vocab[t]),
    outLabels: emitted.map((t) => (t < 0 ? "…" : vocab[t])),
    maps,
  };
}

// The defaults the widget shows per task: a typical input of each.
export const EXAMPLES = Object.freeze({
  reverse: "abcdefgh", sort: "hedijcdc", after_marker: "dhjcgg|ajhc", date: "22 Nov 2026",
});
