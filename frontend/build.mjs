// Bundles the frontend into frontend/dist: assets/app-<hash>.js (with uPlot), assets/app-<hash>.css,
// the ride's worker assets/heartbeat-<hash>.js, the FIT export's module assets/fit-<hash>.js and the ride's
// MQTT client assets/mqtt-<hash>.js,
// named by their content, and index.html, made from frontend/index.html with those names in place of
// its app.js and app.css. The assets may then be kept a year; only the page is asked for again
// (stacks/headers.py: the Cache-Control of each, in AWS and on make local).
//
// The site's icon (favicon.svg) is copied as it is, next to the page, which names it (<link rel="icon">;
// browsers then ask no /favicon.ico): deployed and revalidated with the page (stacks/site.py).
//
// `node frontend/build.mjs` builds; imported (tests/integration/test_auth_js.py), it only gives
// builtAssets.
import { realpathSync } from "node:fs";
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
const assets = join(dist, "assets");
const ENTRY = "src/main.js"; // as esbuild's metafile names it: relative to absWorkingDir (here)
const WORKER = "src/heartbeat.worker.js"; // the ride's heartbeat (frontend/src/heartbeat.js)
const FIT_EXPORT = "src/fitExport.js"; // a ride as a FIT file (Garmin's SDK), imported on a click only
const MQTT_LINK = "src/mqttLink.js"; // mqtt.js, imported as a ride first sends over MQTT (ingest.js)
const ICON = "favicon.svg";

// The entry's script and the stylesheet esbuild gathered from its imports (its cssBundle), as the
// metafile's `outputs` name them (paths relative to absWorkingDir). Throws, naming what it found,
// when either is missing or the script is not the one output of the entry that ends in .js.
export function builtAssets(outputs, entry = ENTRY) {
  const script = builtScript(outputs, entry);
  const stylesheet = outputs[script].cssBundle;
  if (!stylesheet || !(stylesheet in outputs) || !stylesheet.endsWith(".css")) {
    throw new Error(`esbuild built no stylesheet for ${entry} (${script} has cssBundle ${JSON.stringify(stylesheet ?? null)}): `
      + "frontend/index.html needs one; does the app still import style.css?");
  }
  return { script, stylesheet };
}

async function main() {
  const { build } = await import("esbuild");
  await rm(assets, { recursive: true, force: true }); // the previous build's names
  await mkdir(assets, { recursive: true });
  const options = {
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
  };
  // The ride's heartbeat worker first: a script of its own (the CSP's script-src 'self' allows a worker
  // from the site's origin, not one made from a blob), whose name the app is given as HEARTBEAT_WORKER.
  const worker = await build({ ...options, entryPoints: { heartbeat: join(here, WORKER) } });
  const workerScript = builtScript(worker.metafile.outputs, WORKER);
  // The FIT export: an ES module of its own (Garmin's SDK is most of it), which the racer's page
  // import()s as the racer clicks "Download .fit": the app's script, and so the site's cold start, stays
  // without it. The app names it as FIT_EXPORT and leaves that import() to the browser (external).
  const fit = await build({ ...options, format: "esm", entryPoints: { fit: join(here, FIT_EXPORT) } });
  const fitModule = builtScript(fit.metafile.outputs, FIT_EXPORT);
  // The ride's MQTT client (mqtt.js's browser build), likewise: only a ride that sends over MQTT loads it.
  const link = await build({ ...options, format: "esm", entryPoints: { mqtt: join(here, MQTT_LINK) } });
  const mqttModule = builtScript(link.metafile.outputs, MQTT_LINK);
  const { metafile } = await build({
    ...options,
    entryPoints: { app: join(here, ENTRY) },
    external: ["/assets/*"],
    define: {
      HEARTBEAT_WORKER: JSON.stringify("/" + relative(dist, join(here, workerScript))),
      FIT_EXPORT: JSON.stringify("/" + relative(dist, join(here, fitModule))),
      MQTT_LINK: JSON.stringify("/" + relative(dist, join(here, mqttModule))),
    },
  });

  // The entry's script and its stylesheet, as paths under dist.
  const { script, stylesheet } = builtAssets(metafile.outputs);
  const names = {
    "app.js": "/" + relative(dist, join(here, script)),
    "app.css": "/" + relative(dist, join(here, stylesheet)),
  };

  let page = await readFile(join(here, "index.html"), "utf8");
  for (const [name, built] of Object.entries(names)) {
    const reference = new RegExp(`(src|href)="${name.replace(".", "\\.")}"`, "g");
    if (!reference.test(page)) throw new Error(`frontend/index.html does not name ${name}`);
    page = page.replace(reference, `$1="${built}"`);
  }
  await writeFile(join(dist, "index.html"), page);
  await copyFile(join(here, ICON), join(dist, ICON));
}

// The one script esbuild built for `entry` (as its metafile's `outputs` name them); throws, naming what
// it found, when there is not exactly one.
function builtScript(outputs, entry) {
  const scripts = Object.keys(outputs).filter((path) => outputs[path].entryPoint === entry && path.endsWith(".js"));
  if (scripts.length !== 1) {
    throw new Error(`esbuild built ${scripts.length} scripts for ${entry} (expected one): `
      + `its outputs are ${Object.keys(outputs).join(", ") || "none"}`);
  }
  return scripts[0];
}

// Run as a script (node frontend/build.mjs), not imported: argv[1] is this file, symlinks resolved.
function invoked() {
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false; // no script path (node -e), or not a file
  }
}

if (invoked()) await main();
