// recurrent-layer.js - one recurrent layer of width d over n steps, timed by <sx-costs> beside
// n d^2 (its SxCosts.recurrentLayer hook): the GRU encoder of an RNN without attention (state d,
// embedding 1 and a vocabulary of 4, so the 3 d^2 recurrent products dominate each step), run by
// rnn.forward over n source tokens with one decoder step (a fixed cost of about two steps, as
// attention()'s call overhead). The RNN class reads at most 256 source positions (config.maxLen),
// so a longer n runs in chunks of 256 steps, each from a fresh state (the same operations). One
// model is kept between calls of the same (chunk, d): <sx-costs> calls it many times per size.

export const MAX_CHUNK = 256; // RNN config.maxLen's limit
/** The widest layer timed: its RNN (encoder, decoder, Adam state) takes about 12 MB of wasm memory at 256. */
export const MAX_D = 256;

/** (n, d) => void over the library lib ({ RNN }); free() drops the kept model. */
export function recurrentLayerOf(lib) {
  let kept = null; // { len, d, model, src, tgt }
  function layer(n, d) {
    const fn = "recurrentLayer";
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`${fn}: n must be an integer >= 1 (got ${n})`);
    if (!Number.isInteger(d) || d < 1 || d > MAX_D) throw new RangeError(`${fn}: d must be an integer in [1, ${MAX_D}] (got ${d})`);
    const len = Math.min(n, MAX_CHUNK);
    if (!kept || kept.len !== len || kept.d !== d) {
      layer.free();
      const model = new lib.RNN({ vocab: 4, maxLen: len, embed: 1, hidden: d, attnHidden: 1, attention: "none", maxBatch: 1 });
      kept = { len, d, model, src: new Int32Array(len).fill(3), tgt: Int32Array.of(1) };
    }
    for (let left = n; left > 0; left -= len) {
      kept.model.forward(left >= len ? kept.src : kept.src.subarray(0, left), kept.tgt);
    }
  }
  layer.free = () => { if (kept) { kept.model.free(); kept = null; } };
  return layer;
}
