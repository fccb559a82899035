export default {
  title: "Simplexity in VitePress",
  vue: {
    template: {
      // <sx-...> are custom elements, not Vue components: render them as they are
      compilerOptions: { isCustomElement: (tag) => tag.startsWith("sx-") },
    },
  },
  // the dev server (Vite 5): serve simplexity as it is, beside its .wasm files
  vite: { optimizeDeps: { exclude: ["simplexity"] } },
};
