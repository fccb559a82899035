// loader.js - find, fetch and instantiate a simplexity .wasm module (browsers, workers, Node).
//
// emcc's own JS glue is not used (it is broken on Node 20, see docs/TOOLCHAIN.md). The modules
// are built with -sSTANDALONE_WASM: they import only env.emscripten_notify_memory_growth and
// export `memory`, `_initialize` (called once here) and the sx_* functions of simplexity.h.
//
//   const { exports, memory, simd, core, url } = await loadWasm({ simd, core, url, bytes, onMemoryGrowth });
//
// Two cores, each built twice (SIMD and scalar): the full core (simplexity*.wasm: everything) and
// the mappings core (simplexity-mappings*.wasm: the mappings, their gradients, entropies,
// Jacobians and thresholds; a quarter of the bytes), which the widgets that draw mappings only
// load when nothing on the page asks for the full one.
//
// Bundlers (Vite, webpack, Parcel, Rollup with an import-meta-assets plugin) emit a file only for
// a literal `new URL("./file.wasm", import.meta.url)`: both builds' URLs below are written that
// way, each in its own expression, so an app's build carries both .wasm files and the page
// fetches the one the probe picks. This module imports nothing from Node: where it runs in Node
// (a file: URL), it reads the file through process.getBuiltinModule (Node >= 20.16), which no
// bundler tries to resolve, so the same module serves browsers and Node and a page that uses the
// API and the widgets holds one instance.
// -------------------------------------------------------------------- constants
/** The ABI (SX_ABI_VERSION in core/include/simplexity.h) this JS was written for. */
export const ABI_VERSION = 1;

/** The files `make` puts beside this module in dist/. */
export const WASM_FILES = Object.freeze({
  full: Object.freeze({ simd: "simplexity-simd.wasm", scalar: "simplexity.wasm" }),
  mappings: Object.freeze({ simd: "simplexity-mappings-simd.wasm", scalar: "simplexity-mappings.wasm" }),
});

// Where the build beside this module is (literal URLs: see the top of this file).
function defaultUrl(simd, core) {
  if (core === "mappings") {
    return simd ? new URL("./simplexity-mappings-simd.wasm", import.meta.url) : new URL("./simplexity-mappings.wasm", import.meta.url);
  }
  return simd ? new URL("./simplexity-simd.wasm", import.meta.url) : new URL("./simplexity.wasm", import.meta.url);
}

/** The base a user's relative `init({ url })` is resolved against: the page (or the worker's
 *  script) in a browser, the working directory in Node. Never this module, whose URL a bundler
 *  changes. */
function userBase() {
  if (typeof document !== "undefined" && document.baseURI) return document.baseURI;
  if (typeof location !== "undefined" && location.href) return location.href;
  const proc = globalThis.process;
  const nodeUrl = proc?.getBuiltinModule?.("node:url");
  if (nodeUrl && typeof proc.cwd === "function") return nodeUrl.pathToFileURL(`${proc.cwd()}/`).href;
  return undefined; // only an absolute url can be resolved
}

function userUrl(url) {
  try {
    return new URL(url, userBase());
  } catch {
    throw new TypeError(`init: url ${JSON.stringify(String(url).slice(0, 80))} is not a URL, or is relative where there is no page to resolve it against`);
  }
}

/** Every export the JS side calls, per core (wasm/exports-mappings.txt, and the full core's
 *  wasm/exports.txt besides); a module missing one is refused with its name. */
const MAPPINGS_EXPORTS = [
  "memory", "_initialize", "sx_abi_version", "sx_build_simd", "sx_status_str", "sx_last_error",
  "sx_last_error_index", "sx_malloc", "sx_free",
  "sx_softmax", "sx_sparsemax", "sx_entmax15", "sx_entmax", "sx_fusedmax", "sx_oscarmax",
  "sx_softmax_backward", "sx_sparsemax_backward", "sx_entmax15_backward", "sx_entmax_backward",
  "sx_fusedmax_backward", "sx_oscarmax_backward", "sx_entmax_alpha_grad", "sx_tsallis_entropy",
  "sx_sigmoid", "sx_sigmoid_backward", "sx_groupmax", "sx_groupmax_backward",
  "sx_jacobian", "sx_threshold",
];
export const REQUIRED_EXPORTS = Object.freeze({
  mappings: Object.freeze(MAPPINGS_EXPORTS),
  full: Object.freeze([...MAPPINGS_EXPORTS,
  "sx_span_mask", "sx_nw_pooling", "sx_nw_pooling_backward", "sx_attention", "sx_attention_tiled",
  "sx_attention_pattern", "sx_pattern_mask", "sx_pattern_lsh",
  "sx_positional_encoding", "sx_relative_scores", "sx_txl_scores",
  "sx_attention_scores", "sx_attention_scores_backward", "sx_masked_mapping", "sx_masked_mapping_backward",
  "sx_fy_loss", "sx_fy_loss_index",
  "sx_chain_marginals", "sx_chain_marginals_backward", "sx_chain_sparsemap", "sx_chain_sparsemap_backward",
  "sx_chain_sparsemap_support",
  "sx_prox_tv",
  "sx_task_count", "sx_task_name", "sx_task_vocab_size", "sx_task_width", "sx_task_lengths",
  "sx_task_token_char", "sx_task_generate", "sx_task_answer", "sx_task_split_of", "sx_task_encode",
  "sx_task_decode",
  "sx_model_create", "sx_model_free", "sx_model_reserve", "sx_model_config", "sx_model_fconfig",
  "sx_model_num_params", "sx_model_steps", "sx_model_alphas", "sx_model_spans", "sx_model_forward",
  "sx_model_logits", "sx_model_attention", "sx_model_attention_shape", "sx_model_loss",
  "sx_model_train_step", "sx_model_generate", "sx_model_save_size_as", "sx_model_save_as",
  "sx_model_load", "sx_model_edit", "sx_model_clear_edits", "sx_model_edit_count", "sx_model_explain",
  "sx_model_attention_grad", "sx_model_rollout",
  ]),
});

// (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)): validates only where the
// engine has fixed-width SIMD (the same probe as wasm-feature-detect).
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
]);

// ------------------------------------------------------------------ feature probe
let simdSupported = null;

/** True when this engine validates wasm SIMD (simd128). Probed once. */
export function hasSimd() {
  if (simdSupported === null) {
    try {
      simdSupported = WebAssembly.validate(SIMD_PROBE);
    } catch {
      simdSupported = false;
    }
  }
  return simdSupported;
}

// ----------------------------------------------------------------------- fetching
async function readFileUrl(url) {
  const fs = globalThis.process?.getBuiltinModule?.("node:fs");
  if (!fs) {
    throw new Error(`simplexity: cannot read ${url}: this engine has no process.getBuiltinModule ` +
      "(Node >= 20.16 has it); pass init({ bytes }) with the file's contents instead");
  }
  try {
    return await fs.promises.readFile(url);
  } catch (err) {
    throw new Error(
      `simplexity: failed to read ${decodeURIComponent(url.pathname)}: ${err.code || err.message}` +
        " (run `make` to build dist/, or pass init({ url }) or init({ bytes }))",
      { cause: err },
    );
  }
}

async function fetchAndInstantiate(url, imports) {
  let response;
  try {
    response = await fetch(url, { credentials: "same-origin" });
  } catch (err) {
    throw new Error(`simplexity: failed to fetch ${url}: ${err.message}`, { cause: err });
  }
  if (!response.ok) {
    throw new Error(
      `simplexity: failed to fetch ${url}: HTTP ${response.status} ${response.statusText}`.trimEnd() +
        " (serve the .wasm files beside simplexity.js, or pass init({ url }))",
    );
  }
  // instantiateStreaming insists on Content-Type: application/wasm. Servers that send another
  // type (or none) still work: read the bytes instead (no second request).
  const type = (response.headers.get("content-type") || "").split(";")[0].trim().toLowerCase();
  if (type === "application/wasm" && typeof WebAssembly.instantiateStreaming === "function") {
    return WebAssembly.instantiateStreaming(response, imports);
  }
  return WebAssembly.instantiate(await response.arrayBuffer(), imports);
}

// ---------------------------------------------------------------------- loading
/**
 * Load, check and initialise one simplexity wasm module.
 * @param {{ simd?: boolean, core?: "full" | "mappings", url?: string | URL, bytes?: BufferSource, onMemoryGrowth?: () => void }} [options]
 *   simd: true forces the SIMD build, false the scalar one, undefined probes the engine.
 *   core: "full" (default) or "mappings": which core's file is fetched by default; a given url
 *     or bytes may hold either, and the module's exports say which (the full core serves a
 *     "mappings" request, not the other way round).
 *   url: where the .wasm is, relative to the page (document.baseURI; in Node, the working
 *     directory); default: the build beside this file.
 *   bytes: the module itself (nothing is fetched); must be the build `simd` selects.
 *   onMemoryGrowth: called (synchronously, inside wasm) whenever the wasm memory grows.
 */
export async function loadWasm(options = {}) {
  const engineSimd = hasSimd();
  if (options.simd === true && !engineSimd) {
    throw new Error(
      "simplexity: this JavaScript engine has no WebAssembly SIMD; call init({ simd: false }) " +
        "or init() to use the scalar build",
    );
  }
  let simd = options.simd === undefined ? engineSimd : Boolean(options.simd);
  const url = options.bytes !== undefined ? "the given bytes"
    : options.url !== undefined ? userUrl(options.url) : defaultUrl(simd, options.core);

  const onGrowth = options.onMemoryGrowth || (() => {});
  const imports = { env: { emscripten_notify_memory_growth: () => onGrowth() } };

  let instance;
  if (options.bytes !== undefined) {
    ({ instance } = await instantiateChecked(options.bytes, imports, "the given bytes"));
  } else if (url.protocol === "file:") {
    const bytes = await readFileUrl(url);
    ({ instance } = await instantiateChecked(bytes, imports, url));
  } else {
    try {
      ({ instance } = await fetchAndInstantiate(url, imports));
    } catch (err) {
      const msg = err.message.startsWith("simplexity:") ? err.message : `simplexity: cannot instantiate ${url}: ${err.message}`;
      // Only an engine without SIMD needs a scalar file: say why, and where it goes (the
      // single-file build inlines the SIMD build alone, and fetches the scalar one beside itself).
      const why = !engineSimd && options.url === undefined
        ? `; this engine has no WebAssembly SIMD (Safari and iOS before 16.4, Chrome before 91, Firefox before 89), ` +
          `so it needs the scalar build ${url.pathname.slice(url.pathname.lastIndexOf("/") + 1)}: put simplexity.wasm and ` +
          "simplexity-mappings.wasm beside simplexity.js, or beside simplexity-widgets.js (the single-file build " +
          "inlines only the SIMD build), or use a browser with SIMD"
        : "";
      throw new Error(msg + why, { cause: err });
    }
  }

  const exports = instance.exports;
  // A module without the model's exports is the mappings core (checked in full below).
  const core = "sx_model_create" in exports || !("sx_softmax" in exports) ? "full" : "mappings";
  if (core === "mappings" && options.core !== "mappings") {
    throw new Error(`simplexity: ${url} is the mappings core (${WASM_FILES.mappings.simd} or ` +
      `${WASM_FILES.mappings.scalar}), but the full core was asked for: pass the url or bytes of ` +
      `${WASM_FILES.full.simd} or ${WASM_FILES.full.scalar}, or init({ core: "mappings" }) for the mappings alone`);
  }
  const missing = REQUIRED_EXPORTS[core].filter((name) => !(name in exports));
  if (missing.length) {
    throw new Error(
      `simplexity: ${url} lacks the export(s) ${missing.join(", ")}; rebuild it with \`make\``,
    );
  }
  const abi = exports.sx_abi_version();
  if (abi !== ABI_VERSION) {
    throw new Error(
      `simplexity: ${url} has ABI version ${abi} but this simplexity.js expects ${ABI_VERSION}; ` +
        "use the .wasm files built with this simplexity.js (`make`)",
    );
  }
  // The module says which build it is; given bytes must be the build that was asked for.
  const built = exports.sx_build_simd() === 1;
  if (options.bytes !== undefined && options.simd === undefined) simd = built; // bytes say which
  if (built !== simd) {
    const name = (b) => (b ? "SIMD" : "scalar");
    throw new Error(`simplexity: ${url} is the ${name(built)} build, but the ${name(simd)} build was asked for` +
      (options.bytes !== undefined ? " (pass the other bytes, or init({ simd }) to match them)" : ""));
  }
  exports._initialize();
  return { exports, memory: exports.memory, simd, core, abi, url: String(url) };
}

async function instantiateChecked(bytes, imports, url) {
  try {
    return await WebAssembly.instantiate(bytes, imports);
  } catch (err) {
    throw new Error(`simplexity: cannot instantiate ${url}: ${err.message}`, { cause: err });
  }
}
