// quickstart.mjs - a few mappings of one score vector. Run: node examples/quickstart.mjs
import { init, info, softmax, sparsemax, entmax15, entmax, fusedmax, oscarmax } from "simplexity";

await init();
const x = [1.5, 0, 1];
const show = (p) => `[${Array.from(p, (v) => v.toFixed(4)).join(", ")}]`;

console.log(`simplexity (${info().simd ? "SIMD" : "scalar"} build), x = [${x}]`);
console.log("softmax           ", show(softmax(x)));
console.log("sparsemax         ", show(sparsemax(x))); // [0.7500, 0.0000, 0.2500]: exact zeros
console.log("entmax15          ", show(entmax15(x)));
console.log("entmax alpha=1.25 ", show(entmax(x, { alpha: 1.25 })));
console.log("softmax T=0.1     ", show(softmax(x, { temperature: 0.1 })));
console.log("fusedmax lambda=.3", show(fusedmax(x, { lambda: 0.3 })));
console.log("oscarmax beta=.1  ", show(oscarmax(x, { beta: 0.1 })));

// Many rows at once: rows * n scores, row-major; -Infinity masks an entry.
const batch = new Float32Array([1.5, 0, 1, 2, -Infinity, 2]);
console.log("sparsemax, 2 rows ", show(sparsemax(batch, { n: 3 })));
