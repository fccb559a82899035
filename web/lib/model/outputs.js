// model/outputs.js - the output layer's distributions. A model's output mapping (config.output:
// softmax, or sparsemax, 1.5-entmax, alpha-entmax trained with their Fenchel-Young losses) turns
// the logits into the next token's distribution, with exact zeros for the sparse ones. Here:
// that mapping of logits (forward's `probs`), greedy decoding with each step's distribution and
// support (model.decode), and exact search (model.exactSearch): every output sequence with
// nonzero probability, depth first over each step's support, as Peters, Niculae & Martins (2019)
// enumerate them. The Model class calls these with `m`, its private state for one call
// (model-class.js #inner()).
import { OUTPUT_ALPHA } from "./names.js";
import { lengthCheck } from "./tokens.js";

const PAD = 0, EOS = 2;

/** mapLogits, decode(m, src, opts) and exactSearch(m, src, opts) over one core. */
export function outputMethods(core, { intArg, objectArg, knownKeys, rowsOf, readTokens }) {
  const { show, coreError } = core;

  /** The output mapping of `rows` rows of logits at byte address xp (wasm memory), copied out.
   *  The core's sx_entmax at the mapping's alpha: the function the training loss maps with. */
  function mapLogits(fn, ex, config, xp, rows) {
    const n = rows * config.vocab;
    const at = core.scratch(fn, 4 * n);
    const alpha = OUTPUT_ALPHA[config.output] ?? config.outputAlpha;
    const st = ex.sx_entmax(at, xp, rows, config.vocab, alpha, 1);
    if (st !== 0) throw coreError(fn, st);
    return core.f32().slice(at >> 2, (at >> 2) + n);
  }

  /** The token ids with p > 0, most probable first (ties: the lower id first). */
  function supportOf(p) {
    const ids = [];
    for (let v = 0; v < p.length; v++) if (p[v] > 0) ids.push(v);
    ids.sort((a, b) => p[b] - p[a] || a - b);
    return Int32Array.from(ids);
  }

  /**
   * Greedy decoding (model.generate's tokens, options and checks) with each step's output
   * distribution: per source row { tokens, steps }, steps[t - 1] = { token: tokens[t], probs
   * (vocab; exact zeros outside a sparse output's support), support (ids with p > 0, most
   * probable first) } for t = 1 up to EOS (included) or the row's end.
   */
  function decode(m, src, opts) {
    const fn = "model.decode";
    const rows = m.generate(fn, src, opts);
    const ex = m.live(fn);
    const h = m.handle(), config = m.config(), V = config.vocab;
    const steps = ex.sx_model_attention_shape(h, 1, 2); // decoder positions of the decoding pass
    const probs = mapLogits(fn, ex, config, ex.sx_model_logits(h), rows.length * steps);
    return rows.map((tokens, b) => {
      const out = [];
      for (let t = 1; t <= steps; t++) {
        const p = probs.slice((b * steps + t - 1) * V, (b * steps + t) * V);
        out.push({ token: tokens[t], probs: p, support: supportOf(p) });
        if (tokens[t] === EOS) break;
      }
      return { tokens, steps: out };
    });
  }

  /** exactSearch's options, checked. */
  function searchOptions(fn, config, opts) {
    const o = objectArg(fn, "options", opts, true);
    knownKeys(fn, "options", o, ["cap", "maxLen", "partial"]);
    const cap = intArg(fn, "cap", o.cap, 1, 1000000, 1000);
    const maxLen = intArg(fn, "maxLen", o.maxLen, 2, config.maxLen, config.maxLen);
    if (o.partial !== undefined && typeof o.partial !== "boolean") {
      throw new TypeError(`${fn}: partial must be true or false (got ${show(o.partial)})`);
    }
    return { cap, maxLen, partial: o.partial === true };
  }

  /**
   * Every output sequence with nonzero probability for one source row: depth first from BOS
   * over each step's support (the prefix run through the model, teacher forced); a sequence
   * ends at EOS (finished), at PAD (the model's mass there), or at maxLen tokens (cut). Its
   * probability is the product of its steps' probabilities. Returns { sequences (most probable
   * first: { tokens (BOS first), probability, finished }), complete, expanded (prefixes run) }.
   * Past `cap` sequences (default 1000; a softmax output gives every sequence nonzero
   * probability) it throws a RangeError, or with partial: true returns the first cap found,
   * complete: false.
   */
  function exactSearch(m, src, opts) {
    const fn = "model.exactSearch";
    const ex = m.live(fn);
    const config = m.config();
    const { cap, maxLen, partial } = searchOptions(fn, config, opts);
    const s = rowsOf(fn, "src", src, undefined, undefined);
    if (s.count !== 1) throw new RangeError(`${fn}: src must be one source row (got ${s.count} rows)`);
    lengthCheck(fn, "src", s.len, 1, config.maxLen);
    const srcIds = readTokens(fn, "src", s, config.vocab);
    m.live(fn); // a getter may have freed the model
    const h = m.handle(), V = config.vocab, ns = srcIds.length;
    const prefix = new Int32Array(maxLen);
    prefix[0] = 1; // BOS
    const found = [];
    let expanded = 0, complete = true;
    const next = (len) => { // the distribution of the token after prefix[0 .. len)
      const at = core.scratch(fn, 4 * (ns + len));
      core.i32().set(srcIds, at >> 2);
      core.i32().set(prefix.subarray(0, len), (at >> 2) + ns);
      const st = ex.sx_model_forward(h, at, ns, at + 4 * ns, len, 1);
      if (st !== 0) throw coreError(fn, st);
      expanded++;
      return mapLogits(fn, ex, config, ex.sx_model_logits(h) + 4 * (len - 1) * V, 1);
    };
    const visit = (len, prob) => { // false once the cap stops the search
      const p = next(len);
      for (const v of supportOf(p)) {
        const q = prob * p[v];
        prefix[len] = v;
        if (v !== EOS && v !== PAD && len + 1 < maxLen) {
          if (!visit(len + 1, q)) return false;
        } else if (found.length === cap) {
          complete = false;
          return false;
        } else {
          found.push({ tokens: prefix.slice(0, len + 1), probability: q, finished: v === EOS });
        }
      }
      return true;
    };
    visit(1, 1);
    if (!complete && !partial) {
      throw new RangeError(`${fn}: more than cap (${cap}) output sequences have nonzero probability ` +
        `(${config.output} outputs${config.output === "softmax" ? ": every sequence has some" : ""}): ` +
        "raise options.cap, or pass partial: true for the first cap found");
    }
    found.sort((a, b) => b.probability - a.probability || compareRows(a.tokens, b.tokens));
    return { sequences: found, complete, expanded };
  }

  return { mapLogits, decode, exactSearch };
}

function compareRows(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}
