"""The built frontend (``frontend/dist``), served by the local stack for GETs no API route matches,
with the Cache-Control CloudFront's bucket gives each file (``stacks/headers.py``): the content-named
assets a year, the page and the rest revalidated."""

from __future__ import annotations

import mimetypes
from pathlib import Path

from stacks.headers import file_cache_control

DIST = Path(__file__).resolve().parents[1] / "frontend" / "dist"
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".html": "text/html; charset=utf-8", ".json": "application/json", ".map": "application/json",
         ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon"}


def static_file(path: str, root: Path = DIST) -> tuple[bytes, dict[str, str]] | None:
    """(content, headers: Content-Type and Cache-Control) of the file ``path`` names under ``root``, or None."""
    relative = "index.html" if path in ("", "/") else path.lstrip("/")
    file = (root / relative).resolve()
    if not file.is_relative_to(root.resolve()) or not file.is_file():
        return None
    content_type = TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    return file.read_bytes(), {"Content-Type": content_type,
                               "Cache-Control": file_cache_control(file.relative_to(root.resolve()).as_posix())}
