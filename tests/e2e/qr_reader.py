"""QR codes read back as a phone's app would: an image's pixels given to jsQR (npm ``jsqr``, Apache-2.0,
a decoder that is not this project's and not the encoder the page uses), run in Node.

``rgba_of_png`` reads the PNGs Playwright's screenshots are (8-bit RGB or RGBA, not interlaced) with
the standard library's zlib, undoing the five row filters of the PNG specification (section 9)."""

from __future__ import annotations

import base64
import json
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JSQR = ROOT / "node_modules" / "jsqr" / "dist" / "jsQR.js"
NODE = shutil.which("node", path=subprocess.run([str(ROOT / "tools" / "node-path"), "--path"], capture_output=True,
                                                text=True).stdout.strip() or None)


def _paeth(left: int, up: int, corner: int) -> int:
    guess = left + up - corner
    near_left, near_up, near_corner = abs(guess - left), abs(guess - up), abs(guess - corner)
    if near_left <= near_up and near_left <= near_corner:
        return left
    return up if near_up <= near_corner else corner


def rgba_of_png(png: bytes) -> tuple[int, int, bytes]:
    """(width, height, RGBA bytes, row by row) of a PNG."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, compressed = 8, b""
    header = None
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        body = png[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            compressed += body
        at += 12 + length
    assert header, "no IHDR"
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, f"an 8-bit RGB(A) PNG, not interlaced: {header}"
    channels = 4 if color == 6 else 3
    raw, stride = zlib.decompress(compressed), width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = row[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            row[i] = (row[i] + (0, left, up, (left + up) // 2, _paeth(left, up, corner))[kind]) & 0xFF
        rows.append(bytes(row))
        previous = row
    pixels = b"".join(rows)
    if channels == 3:
        pixels = b"".join(pixels[i:i + 3] + b"\xff" for i in range(0, len(pixels), 3))
    return width, height, pixels


def read_qr(width: int, height: int, rgba: bytes) -> str | None:
    """The text of the QR code jsQR finds in the picture (its bytes as UTF-8), or None."""
    script = f"""
import {{ createRequire }} from "node:module";
const jsQR = createRequire(import.meta.url)({json.dumps(str(JSQR))});
let input = "";
for await (const chunk of process.stdin) input += chunk;
const found = jsQR(new Uint8ClampedArray(Buffer.from(input, "base64")), {width}, {height});
console.log(JSON.stringify(found ? Buffer.from(found.binaryData).toString("utf8") : null));
"""
    assert NODE, "no Node: `make test` installs one (`make node`)"
    done = subprocess.run([NODE, "--input-type=module", "-e", script], input=base64.b64encode(rgba).decode(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def read_qr_png(png: bytes) -> str | None:
    """The text of the QR code in a screenshot, or None."""
    return read_qr(*rgba_of_png(png))
