// A QR code of a text, drawn as an SVG element: the setup link an authenticator app scans on the
// account page. The modules come from qrcode-generator (Kazuhiko Arase, MIT), encoded in the page.
import qrcode from "qrcode-generator";

const SVG = "http://www.w3.org/2000/svg";
export const QUIET_ZONE = 4; // modules of light margin on each side, as the QR code standard asks (ISO/IEC 18004)
const MODULE_PX = 4; // whole pixels a module: sharp edges for a camera (a narrower screen scales it down)

// The code's modules, row by row: strings of "1" (dark) and "0" (light). The text goes in byte mode as
// UTF-8 (the library's byte mode takes one character per byte); error correction M (15 %), the
// smallest version that holds it.
export function qrModules(text, level = "M") {
  const code = qrcode(0, level);
  code.addData(String.fromCharCode(...new TextEncoder().encode(text)), "Byte");
  code.make();
  const size = code.getModuleCount();
  return Array.from({ length: size }, (_, row) => Array.from({ length: size }, (_, column) => (code.isDark(row, column) ? "1" : "0")).join(""));
}

// The dark modules as one SVG path, in module units, offset by the quiet zone.
export function qrPath(rows) {
  const squares = [];
  rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x += 1) {
      if (row[x] === "1") squares.push(`M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`);
    }
  });
  return squares.join("");
}

// <svg class="qr" role="img"> of ``text``, named ``label`` for screen readers.
export function qrSvg(text, label) {
  const rows = qrModules(text);
  const side = rows.length + 2 * QUIET_ZONE;
  const svg = document.createElementNS(SVG, "svg");
  for (const [name, value] of Object.entries({ class: "qr", role: "img", "aria-label": label, viewBox: `0 0 ${side} ${side}`,
    width: side * MODULE_PX, height: side * MODULE_PX, "shape-rendering": "crispEdges" })) svg.setAttribute(name, value);
  const light = document.createElementNS(SVG, "rect");
  for (const [name, value] of Object.entries({ width: side, height: side, fill: "#fff" })) light.setAttribute(name, value);
  const dark = document.createElementNS(SVG, "path");
  dark.setAttribute("d", qrPath(rows));
  dark.setAttribute("fill", "#000");
  svg.append(light, dark);
  return svg;
}
