"""The QR code of the account page's setup link (frontend/src/qr.js), run in Node: its modules, drawn
as pixels, read back by jsQR (npm ``jsqr``: a decoder that is not the encoder the page bundles)."""

import json

from .nodejs import FRONTEND, ROOT, imported, package, printed, run

URI = "otpauth://totp/Alleycat:zo%C3%AB%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Alleycat"


def qr(tmp_path, body):
    """What the async function ``body`` returns, with frontend/src/qr.js as ``qr`` and jsQR as ``jsQR``."""
    folder = package(tmp_path, [FRONTEND / "qr.js"])
    (folder / "node_modules").symlink_to(ROOT / "node_modules")  # qr.js imports qrcode-generator by name
    jsqr = ROOT / "node_modules" / "jsqr" / "dist" / "jsQR.js"
    return run(imported(folder, qr="qr.js"),
               f'const jsQR = (await import("node:module")).createRequire(import.meta.url)({json.dumps(str(jsqr))});',
               printed(body))


READ_BACK = """
  const rows = qr.qrModules(TEXT);
  const scale = 4, side = (rows.length + 2 * qr.QUIET_ZONE) * scale;
  const pixels = new Uint8ClampedArray(side * side * 4).fill(255);
  rows.forEach((row, y) => [...row].forEach((module, x) => {
    if (module !== "1") return;
    for (let dy = 0; dy < scale; dy += 1) for (let dx = 0; dx < scale; dx += 1) {
      const at = (((y + qr.QUIET_ZONE) * scale + dy) * side + (x + qr.QUIET_ZONE) * scale + dx) * 4;
      pixels[at] = pixels[at + 1] = pixels[at + 2] = 0;
    }
  }));
  const found = jsQR(pixels, side, side);
  return { size: rows.length, square: rows.every((row) => row.length === rows.length),
           text: found && Buffer.from(found.binaryData).toString("utf8") };
"""


def test_the_setup_links_code_reads_back_as_the_link(tmp_path):
    read = qr(tmp_path, READ_BACK.replace("TEXT", json.dumps(URI)))
    assert read["text"] == URI
    # A QR code of version V is 17 + 4V modules a side (ISO/IEC 18004), versions 1 to 40
    assert read["square"] and (read["size"] - 17) % 4 == 0 and 21 <= read["size"] <= 177


def test_text_beyond_ascii_goes_in_as_utf8(tmp_path):
    text = "Zoë Pédale — 🚲"
    assert qr(tmp_path, READ_BACK.replace("TEXT", json.dumps(text)))["text"] == text


def test_the_path_draws_one_square_per_dark_module_inside_the_quiet_zone(tmp_path):
    drawn = qr(tmp_path, """
      const rows = qr.qrModules("hello");
      const squares = [...qr.qrPath(rows).matchAll(/M(\\d+) (\\d+)h1v1h-1z/g)].map((m) => [Number(m[1]), Number(m[2])]);
      const dark = rows.flatMap((row, y) => [...row].flatMap((module, x) => (module === "1" ? [[x, y]] : [])));
      return { squares, dark, quiet: qr.QUIET_ZONE };""")
    assert drawn["quiet"] == 4  # the standard's quiet zone: four modules
    assert drawn["squares"] == [[x + 4, y + 4] for x, y in drawn["dark"]] and drawn["squares"]
