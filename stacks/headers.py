"""What the site's answers carry besides their content, in AWS and on `make local`, decided here once:

- the **security headers** of every answer the browser gets, page, files and API alike: HSTS, the
  Content-Security-Policy, ``nosniff``, no framing, no referrer. ``stacks/site.py`` turns them into
  CloudFront's response headers policy (which overrides whatever the origin says);
  ``local/server.py`` sends the same on every answer, so every browser test runs under the real CSP;
- the **Cache-Control of the site's files**: the built assets are named by their content
  (``frontend/build.mjs``: ``assets/app-<hash>.js``) and may be kept a year; the page and
  ``/config.json`` name them and are revalidated on every load.

No ``aws_cdk`` here (nor in ``stacks/__init__``): the local server imports it on every start. No
function needs it: it is not in the layer.
The API's own Cache-Control is ``alleycat.edge.caching``'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

HSTS_MAX_AGE_SECONDS = 730 * 86_400  # two years
HSTS_INCLUDE_SUBDOMAINS = True
FRAME_OPTION = "DENY"  # the page may not be framed (clickjacking): with frame-ancestors 'none' below
REFERRER_POLICY = "no-referrer"  # no URL of the site leaves it in a Referer header


def content_security_policy(connect: Iterable[str] = ()) -> str:
    """Only the site's own script and styles run, and it talks only to its own origin (the API too)
    and to the origins in ``connect`` (the live boards' socket, sign-in)."""
    return "; ".join([
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
        "font-src 'self'", " ".join(("connect-src 'self'", *connect)), "manifest-src 'self'",
        "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'", "object-src 'none'",
    ])


def strict_transport_security() -> str:
    """As CloudFront writes the header from the policy's settings."""
    return f"max-age={HSTS_MAX_AGE_SECONDS}" + ("; includeSubDomains" if HSTS_INCLUDE_SUBDOMAINS else "")


def security_headers(connect: Iterable[str] = ()) -> dict[str, str]:
    """Every answer's security headers, as the browser receives them from CloudFront.

    Locally the site is plain http on 127.0.0.1: browsers ignore Strict-Transport-Security on an
    http answer (RFC 6797, section 8.1) and for an IP address, so sending it there is harmless."""
    return {
        "Strict-Transport-Security": strict_transport_security(),
        "Content-Security-Policy": content_security_policy(connect),
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": FRAME_OPTION,
        "Referrer-Policy": REFERRER_POLICY,
    }


def origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL (what a CSP source names)."""
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        raise ValueError(f"not an absolute URL: {url!r}")
    return f"{parts.scheme}://{parts.netloc}"


def connect_origins(config: dict) -> tuple[str, ...]:
    """The other origins the page connects to, read from its ``/config.json``: the live boards'
    socket (``events.realtime``), sign-in (``auth.domain``: the OAuth 2.0 endpoints;
    ``auth.idpUrl``: the user pool API) and the MQTT broker a ride publishes to (``ingest.url``: in AWS
    IoT Core's data endpoint, ``wss://<prefix>-ats.iot.<region>.amazonaws.com/mqtt``; locally the stack's
    broker, ``ws://127.0.0.1:<port>/mqtt``). Each once, in that order; what the config lacks is left out."""
    events, auth, ingest = config.get("events") or {}, config.get("auth") or {}, config.get("ingest") or {}
    urls = (events.get("realtime"), auth.get("domain"), auth.get("idpUrl"), ingest.get("url"))
    return tuple(dict.fromkeys(origin(url) for url in urls if url))


# --- the site's files: Cache-Control ----------------------------------------------------------------

ASSETS = "assets"  # the built files named by their content (frontend/build.mjs), under /assets/
IMMUTABLE = "public, max-age=31536000, immutable"  # a year: a changed file has a new name
REVALIDATE = "no-cache"  # the page and /config.json: asked again (a 304 when unchanged) on every load


def file_cache_control(path: str) -> str:
    """Cache-Control of the site file at ``path`` (``/assets/app-<hash>.js``, ``/index.html``, ...)."""
    return IMMUTABLE if path.lstrip("/").startswith(f"{ASSETS}/") else REVALIDATE
