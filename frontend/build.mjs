// Bundles the frontend into frontend/dist: app.js (with uPlot), app.css, index.html.
import { build } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");

await mkdir(dist, { recursive: true });
await build({
  entryPoints: { app: join(here, "src", "main.js") },
  bundle: true,
  minify: true,
  sourcemap: true,
  format: "iife",
  target: ["es2020"],
  outdir: dist,
  logLevel: "warning",
});
await copyFile(join(here, "index.html"), join(dist, "index.html"));
