import { init, info, sparsemax, entmax } from "simplexity";

const out = document.getElementById("out");
init().then(() => {
  out.textContent = JSON.stringify({
    simd: info().simd,
    sparsemax: Array.from(sparsemax([1.5, 0, 1])),
    entmax: Array.from(entmax([1.5, 0, 1], { alpha: 1.5 })),
  });
}, (err) => { out.textContent = JSON.stringify({ error: String(err) }); });
