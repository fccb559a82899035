// arrays.ts - "simplexity/arrays" (the attention viewer's file readers) and <sx-heatmap> as a
// TypeScript page or a Node script uses them (README "Attention files" and "Your own attention"),
// type-checked against dist/arrays.d.ts and dist/widgets.d.ts by `make test-types` (never run).
// The same kinds of lines as api.ts: uses that must compile, exact<T>()(value), and
// `// @ts-expect-error` before a misuse the declarations must reject.
import { readArrays, toAttention, parseNpy, parseNpz, parseSafetensors, parseAttentionJSON, parseLabels, ArrayFileError } from "simplexity/arrays";
import type { NdArray, Attention, ArrayDtype } from "simplexity/arrays";
import type { SxHeatmapElement, SxHeatmapLoadDetail } from "simplexity/widgets";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
function exact<T>() {
  return <V>(value: V, ..._mismatch: Equal<V, T> extends true ? [] : [never]): V => value;
}

const bytes = new Uint8Array(16);
exact<Promise<Map<string, NdArray>>>()(readArrays(bytes, { name: "attn.npy" }));
exact<Promise<Map<string, NdArray>>>()(parseNpz(bytes.buffer));
exact<Map<string, NdArray>>()(parseSafetensors(bytes));
exact<NdArray>()(parseNpy(bytes));
exact<NdArray>()(parseAttentionJSON("[[1, 0]]"));
exact<string[]>()(parseLabels("a\nb"));
const att = toAttention(await readArrays(bytes), { name: "attn.npy", key: "attentions", values: "scores" });
exact<Attention>()(att);
exact<[number, number, number, number]>()(att.shape);
exact<Float32Array>()(att.data);
exact<ArrayDtype>()(att.dtype);
// @ts-expect-error values is "weights" or "scores"
toAttention(new Map(), { values: "probabilities" });
// @ts-expect-error the readers take bytes, not a file name
parseNpy("attn.npy");
try { parseNpy(bytes); } catch (err) { if (err instanceof ArrayFileError) exact<string>()(err.file); }

const hm = document.querySelector("sx-heatmap");
exact<SxHeatmapElement | null>()(hm);
if (hm) {
  hm.src = "attention.npy";
  hm.mapping = "sparsemax";
  hm.sort = "entropy";
  hm.layer = 2;
  exact<string | null>()(hm.labels);
  if (hm.result) exact<Float32Array>()(hm.result.weights);
  // @ts-expect-error not a mapping
  hm.mapping = "argmax";
  // @ts-expect-error result is read-only
  hm.result = undefined;
  const input = document.querySelector("input[type=file]") as HTMLInputElement;
  void hm.loadFiles(input.files);
  hm.addEventListener("sx-heatmap-load", (e) => exact<SxHeatmapLoadDetail>()(e.detail));
}
