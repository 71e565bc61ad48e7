// Bundles the frontend into frontend/dist: assets/app-<hash>.js (with uPlot) and assets/app-<hash>.css,
// named by their content, and index.html, made from frontend/index.html with those names in place of
// its app.js and app.css. The assets may then be kept a year; only the page is asked for again
// (alleycat/headers.py: the Cache-Control of each, in AWS and on make local).
import { build } from "esbuild";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
const assets = join(dist, "assets");

await rm(assets, { recursive: true, force: true }); // the previous build's names
await mkdir(assets, { recursive: true });
const { metafile } = await build({
  entryPoints: { app: join(here, "src", "main.js") },
  entryNames: "assets/[name]-[hash]",
  bundle: true,
  minify: true,
  sourcemap: true,
  format: "iife",
  target: ["es2020"],
  outdir: dist,
  absWorkingDir: here, // the names hash paths relative to it: the same build from any directory
  metafile: true,
  logLevel: "warning",
});

// The entry's script and the stylesheet esbuild gathered from its imports, as paths under dist.
const [[script, output]] = Object.entries(metafile.outputs).filter(([, out]) => out.entryPoint);
const names = {
  "app.js": "/" + relative(dist, join(here, script)),
  "app.css": "/" + relative(dist, join(here, output.cssBundle)),
};

let page = await readFile(join(here, "index.html"), "utf8");
for (const [name, built] of Object.entries(names)) {
  const reference = new RegExp(`(src|href)="${name.replace(".", "\\.")}"`, "g");
  if (!reference.test(page)) throw new Error(`frontend/index.html does not name ${name}`);
  page = page.replace(reference, `$1="${built}"`);
}
await writeFile(join(dist, "index.html"), page);
