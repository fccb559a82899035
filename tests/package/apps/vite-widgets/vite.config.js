import { defineConfig } from "vite";

export default defineConfig({
  // for the dev server of Vite 5 to 7: serve simplexity as it is, not pre-bundled, so that its
  // .wasm files stay beside the module that fetches them (Vite 8 and vite build need nothing)
  optimizeDeps: { exclude: ["simplexity"] },
});
