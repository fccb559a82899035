import path from "node:path";

export default {
  mode: "production",
  context: import.meta.dirname,
  entry: "./main.js",
  output: { path: path.resolve(import.meta.dirname, "dist"), clean: true },
};
