import { init, info, sparsemax, entmax } from "simplexity";
import "simplexity/widgets"; // defines <sx-simplex>, <sx-attention>...: each loads when its tag is in the page

const out = document.getElementById("out");
init().then(() => {
  out.textContent = JSON.stringify({
    simd: info().simd,
    sparsemax: Array.from(sparsemax([1.5, 0, 1])),
    entmax: Array.from(entmax([1.5, 0, 1], { alpha: 1.5 })),
  });
}, (err) => { out.textContent = JSON.stringify({ error: String(err) }); });
