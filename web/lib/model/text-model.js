// model/text-model.js - TextModel: a decoder-only Model (config.arch "decoder") read as a
// character language model. Its character table comes with it: { chars, token_offset } as
// tools/train-gpt.c writes them into each model's JSON (web/models/text/summary.json): token
// token_offset + i is chars[i]; tokens below the offset (PAD, BOS, EOS) are never text, never
// sampled. It encodes and decodes text, gives the next character's distribution after a prompt
// (next: exact zeros for sparse outputs) with each layer's and head's attention row over the
// context, continues a prompt one character at a time over the KV cache (generate: a generator;
// temperature, top-k, nucleus, a seeded random source: model/sampling.js), and fine-tunes on
// text windows (trainStep). The cache holds config.maxLen positions: a context that reaches it
// is cut to its last maxLen / 2 characters and run again. One model, one cache: a generate
// whose model was used by any other call since throws at its next step.
import { seededRandom, sampleIndex } from "./sampling.js";

/** The TextModel class over one core, built on its Model class. */
export function textModelClass(core, { intArg, numArg, objectArg, knownKeys }, Model) {
  const { show } = core;

  /** A vocabulary { chars, token_offset } checked against the model's config. */
  function vocabArg(fn, vocab, config) {
    const v = objectArg(fn, "vocab", vocab, false);
    const chars = v.chars, offset = v.token_offset;
    if (typeof chars !== "string" || chars.length === 0) {
      throw new TypeError(`${fn}: vocab.chars must be a non-empty string (got ${show(chars)})`);
    }
    const off = intArg(fn, "vocab.token_offset", offset, 0, config.vocab - 1);
    if (off + chars.length > config.vocab) {
      throw new RangeError(`${fn}: vocab.token_offset + vocab.chars.length must be <= the model's vocab ${config.vocab} (got ${off + chars.length})`);
    }
    const index = new Map();
    for (let i = 0; i < chars.length; i++) {
      if (index.has(chars[i])) throw new RangeError(`${fn}: vocab.chars repeats ${show(chars[i])} (index ${i})`);
      index.set(chars[i], off + i);
    }
    return { chars, offset: off, index };
  }

  function sampleOptions(fn, opts, maxChars) {
    const o = objectArg(fn, "options", opts, true);
    knownKeys(fn, "options", o, ["maxChars", "temperature", "topK", "topP", "seed", "random", "attention"]);
    if (o.random !== undefined && typeof o.random !== "function") {
      throw new TypeError(`${fn}: random must be a function returning numbers in [0, 1) (got ${show(o.random)})`);
    }
    if (o.attention !== undefined && typeof o.attention !== "boolean") {
      throw new TypeError(`${fn}: attention must be true or false (got ${show(o.attention)})`);
    }
    return {
      maxChars: intArg(fn, "maxChars", o.maxChars, 0, 1e6, maxChars),
      temperature: numArg(fn, "temperature", o.temperature, 1, 0.01, 100),
      topK: intArg(fn, "topK", o.topK, 0, 4096, 0),
      topP: numArg(fn, "topP", o.topP, 1, 0.001, 1),
      random: o.random ?? seededRandom(intArg(fn, "seed", o.seed, 0, 0xffffffff, 1)),
      attention: o.attention !== false,
    };
  }

  class TextModel {
    #model;
    #vocab;
    #epoch = 0; // bumped by every call that moves the cache or the weights

    /** A character model over a decoder-only Model (kept: free() frees it) and its vocabulary. */
    constructor(model, vocab) {
      const fn = "TextModel";
      if (!(model instanceof Model)) throw new TypeError(`${fn}: model must be a Model (got ${show(model)})`);
      const config = model.config;
      if (config.arch !== "decoder") {
        throw new RangeError(`${fn}: model must be decoder-only (config.arch "decoder") (got ${JSON.stringify(config.arch)})`);
      }
      this.#vocab = vocabArg(fn, vocab, config);
      this.#model = model;
    }

    /** A TextModel from checkpoint bytes and the model's vocabulary { chars, token_offset }. */
    static load(bytes, vocab) {
      const model = Model.load(bytes);
      try {
        return new TextModel(model, vocab);
      } catch (e) {
        model.free();
        throw e;
      }
    }

    /** The Model underneath (its config, save, forward over null sources). */
    get model() { return this.#model; }

    /** The characters, in token order from token_offset. */
    get chars() { return this.#vocab.chars; }

    /** The token of chars[0]. */
    get tokenOffset() { return this.#vocab.offset; }

    free() { this.#model.free(); }

    get freed() { return this.#model.freed; }

    /** The tokens of a text; a character outside the vocabulary is a RangeError naming it. */
    encode(text) {
      return this.#encode("textModel.encode", "text", text);
    }

    #encode(fn, name, text) {
      if (typeof text !== "string") throw new TypeError(`${fn}: ${name} must be a string (got ${show(text)})`);
      const out = new Int32Array(text.length);
      for (let i = 0; i < text.length; i++) {
        const t = this.#vocab.index.get(text[i]);
        if (t === undefined) {
          throw new RangeError(`${fn}: ${name}[${i}] ${show(text[i])} is not in the model's characters`);
        }
        out[i] = t;
      }
      return out;
    }

    /** The text of tokens; a token that is no character (PAD, BOS, EOS, out of range) is a RangeError. */
    decode(tokens) {
      const fn = "textModel.decode";
      if (!Array.isArray(tokens) && !ArrayBuffer.isView(tokens)) {
        throw new TypeError(`${fn}: tokens must be an array or a typed array of token ids (got ${show(tokens)})`);
      }
      const { chars, offset } = this.#vocab;
      let s = "";
      for (let i = 0; i < tokens.length; i++) {
        const c = chars[tokens[i] - offset];
        if (!Number.isInteger(tokens[i]) || tokens[i] < offset || c === undefined) {
          throw new RangeError(`${fn}: tokens[${i}] must be a character token in [${offset}, ${offset + chars.length - 1}] (got ${show(tokens[i])})`);
        }
        s += c;
      }
      return s;
    }

    /**
     * The next character's distribution after `prompt` (its last maxLen characters): { probs
     * (Float32Array over the model's tokens; exact zeros of a sparse output), logits, attention
     * (opts.attention, default true: attention[layer][head] a Float32Array over the context's
     * characters), context (the characters the model read) }.
     */
    next(prompt, opts) {
      const fn = "textModel.next";
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["attention"]);
      if (o.attention !== undefined && typeof o.attention !== "boolean") {
        throw new TypeError(`${fn}: attention must be true or false (got ${show(o.attention)})`);
      }
      this.#epoch++;
      return this.#read(fn, this.#context(fn, prompt), o.attention !== false);
    }

    /** The last maxLen characters of a non-empty prompt. */
    #context(fn, prompt) {
      if (typeof prompt === "string" && prompt.length === 0) {
        throw new RangeError(`${fn}: prompt must hold at least one character (got "")`);
      }
      this.#encode(fn, "prompt", prompt);
      return prompt.slice(-this.#model.config.maxLen);
    }

    /** Run the context from position 0; the last step's result. */
    #read(fn, context, attention) {
      const ids = this.#encode(fn, "prompt", context);
      let r;
      for (let t = 0; t < ids.length; t++) {
        r = this.#model.lmStep([ids[t]], t, { attention: attention && t === ids.length - 1 });
      }
      return this.#shaped(r, context);
    }

    #shaped(r, context) {
      const out = { probs: r.probs, logits: r.logits, context };
      if (r.attention) {
        const H = this.#model.config.heads, n = context.length;
        out.attention = r.attention.map((a) => Array.from({ length: H }, (_, h) => a.slice(h * n, (h + 1) * n)));
      }
      return out;
    }

    /**
     * Continue `prompt` character by character over the KV cache: yields { char, token, probs,
     * logits, attention, context } per character, probs, logits and attention those of the step that
     * predicted it after `context`. Options: maxChars (default 200), temperature (1), topK (0: all),
     * topP (1: all), seed (1) or random (a function giving [0, 1)), attention (true).
     */
    *generate(prompt, opts) {
      const fn = "textModel.generate";
      const o = sampleOptions(fn, opts, 200);
      const maxLen = this.#model.config.maxLen, from = this.#vocab.offset;
      let context = this.#context(fn, prompt);
      const epoch = ++this.#epoch;
      let r = this.#read(fn, context, o.attention);
      for (let i = 0; i < o.maxChars; i++) {
        if (this.#epoch !== epoch) throw new Error(`${fn}: the model was used by another call since this generator started; start a new one`);
        const token = sampleIndex(r.probs, { ...o, from }, o.random);
        if (token < 0) throw new Error(`${fn}: the next-character distribution has no mass on a character`);
        const char = this.#vocab.chars[token - from];
        yield { char, token, probs: r.probs, logits: r.logits, attention: r.attention, context: r.context };
        if (this.#epoch !== epoch) throw new Error(`${fn}: the model was used by another call since this generator started; start a new one`);
        context += char;
        if (context.length > maxLen) {
          context = context.slice(-maxLen / 2 | 0);
          r = this.#read(fn, context, o.attention);
        } else {
          r = this.#shaped(this.#model.lmStep([token], context.length - 1, { attention: o.attention }), context);
        }
      }
    }

    /**
     * One character token drawn from a distribution over the model's tokens (next's or generate's
     * probs): temperature, topK, topP, and seed or random as generate's; never a token with
     * probability 0, never one below token_offset.
     */
    sample(probs, opts) {
      const fn = "textModel.sample";
      const V = this.#model.config.vocab;
      if (!(probs instanceof Float32Array || probs instanceof Float64Array || Array.isArray(probs)) || probs.length !== V) {
        throw new TypeError(`${fn}: probs must be a Float32Array, Float64Array or array of the model's ${V} token probabilities (got ${show(probs)})`);
      }
      for (let i = 0; i < V; i++) {
        if (typeof probs[i] !== "number" || !(probs[i] >= 0) || probs[i] === Infinity) {
          throw new RangeError(`${fn}: probs[${i}] must be a finite number >= 0 (got ${show(probs[i])})`);
        }
      }
      const o = sampleOptions(fn, opts, 0);
      const token = sampleIndex(probs, { ...o, from: this.#vocab.offset }, o.random);
      if (token < 0) throw new RangeError(`${fn}: probs has no mass on a character token`);
      return token;
    }

    /** A seeded source of uniform numbers in [0, 1) (mulberry32), for sample, generate, trainStep. */
    static random(seed) {
      return seededRandom(intArg("TextModel.random", "seed", seed, 0, 0xffffffff));
    }

    /**
     * One Adam step of next-character prediction on `text`: opts.batch (default 8) windows of
     * min(maxLen, text.length) characters at offsets drawn from seed or random; lr (1e-3).
     * Returns the loss before the step (the model's output loss, nats per character).
     */
    trainStep(text, opts) {
      const fn = "textModel.trainStep";
      const o = objectArg(fn, "options", opts, true);
      knownKeys(fn, "options", o, ["batch", "lr", "seed", "random"]);
      const ids = this.#encode(fn, "text", text);
      if (ids.length < 2) throw new RangeError(`${fn}: text must hold at least 2 characters (got ${ids.length})`);
      const batch = intArg(fn, "batch", o.batch, 1, 256, 8);
      const lr = numArg(fn, "lr", o.lr, 1e-3, 0, 1);
      if (o.random !== undefined && typeof o.random !== "function") {
        throw new TypeError(`${fn}: random must be a function returning numbers in [0, 1) (got ${show(o.random)})`);
      }
      const random = o.random ?? seededRandom(intArg(fn, "seed", o.seed, 0, 0xffffffff, 1));
      const W = Math.min(this.#model.config.maxLen, ids.length);
      const rows = [];
      for (let b = 0; b < batch; b++) {
        const at = Math.min(ids.length - W, Math.floor(random() * (ids.length - W + 1)));
        rows.push(ids.slice(at, at + W));
      }
      this.#epoch++;
      return this.#model.trainStep({ tgt: rows }, { lr });
    }
  }

  return TextModel;
}
