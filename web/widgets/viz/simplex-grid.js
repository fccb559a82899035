// simplex-grid.js - a triangular mesh of the 2-simplex (pure, no DOM).
// simplexGrid(N): the points i/N, j/N, k/N with i + j + k = N, as barycentric rows of 3
// (one Float32Array, ready for one batched call such as tsallisEntropy(points, { n: 3 })),
// and the N*N small triangles as index triples. The mesh covers the triangle exactly, so
// contours computed on it need no clipping.
export function simplexGrid(N) {
  if (!(Number.isInteger(N) && N >= 1 && N <= 1000)) {
    throw new RangeError(`simplexGrid: N must be an integer in [1, 1000] (got ${N})`);
  }
  const count = ((N + 1) * (N + 2)) / 2;
  const points = new Float32Array(count * 3);
  let k = 0;
  for (let i = 0; i <= N; i++) {
    for (let j = 0; j <= i; j++) {
      // row i has i + 1 points: corner-0 weight (N - i)/N, corner-1 weight (i - j)/N, corner-2 j/N
      points[k++] = (N - i) / N;
      points[k++] = (i - j) / N;
      points[k++] = j / N;
    }
  }
  const start = (i) => (i * (i + 1)) / 2;
  const tris = new Uint32Array(N * N * 3);
  let t = 0;
  for (let i = 0; i < N; i++) {
    for (let j = 0; j <= i; j++) {
      const a = start(i) + j, b = start(i + 1) + j, c = start(i + 1) + j + 1;
      tris[t++] = a; tris[t++] = b; tris[t++] = c;
      if (j < i) { tris[t++] = a; tris[t++] = c; tris[t++] = a + 1; }
    }
  }
  return { points, triangles: tris, count };
}
