// serve.mjs - a small static file server for the built site (dist/site), on 127.0.0.1 only.
//   node web/site/serve.mjs [--port 8080] [--root dist/site]
// Also imported by the browser tests: startServer({ root, port: 0 }) -> { url, close }.
import http from "node:http";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".bin": "application/octet-stream",
  ".txt": "text/plain; charset=utf-8",
};

// Serves files under root; / maps to /index.html; nothing outside root is reachable.
export function startServer({ root, port = 0, host = "127.0.0.1", headers = {} } = {}) {
  const base = path.resolve(root);
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, "http://localhost");
      let rel = decodeURIComponent(url.pathname);
      if (rel.endsWith("/")) rel += "index.html";
      const file = path.resolve(base, "." + rel);
      if (file !== base && !file.startsWith(base + path.sep)) {
        res.writeHead(403).end("forbidden");
        return;
      }
      const body = await fs.readFile(file);
      const type = TYPES[path.extname(file)] || "application/octet-stream";
      res.writeHead(200, { "content-type": type, "cache-control": "no-cache", ...headers });
      res.end(body);
    } catch (err) {
      res.writeHead(err && err.code === "ENOENT" ? 404 : 500, { "content-type": "text/plain" });
      res.end(err && err.code === "ENOENT" ? "not found" : "server error");
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolve({
        url: `http://${host}:${actual}/`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
  };
  const root = opt("--root", path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "dist", "site"));
  const port = Number(opt("--port", process.env.PORT || 8080));
  try {
    await fs.access(path.join(root, "index.html"));
  } catch {
    console.error(`serve: ${root}/index.html not found; run \`make site\` first`);
    process.exit(1);
  }
  const { url } = await startServer({ root, port }).catch((err) => {
    console.error(`serve: cannot listen on 127.0.0.1:${port}: ${err.message} (try PORT=8081 make serve)`);
    process.exit(1);
  });
  console.log(`Simplexity is served at ${url} (Ctrl-C to stop)`);
}
