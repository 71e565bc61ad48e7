"""The site's headers (stacks.headers): the security headers every answer carries, in AWS and on
make local, the CSP's connect list read from /config.json, and the Cache-Control of the site's files."""

import pytest

from local.static import static_file
from stacks import headers

CONFIG = {"events": {"realtime": "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime",
                     "host": "abc.appsync-api.eu-west-1.amazonaws.com", "apiKey": "da2-x"},
          "auth": {"domain": "https://alleycat-1a2b.auth.eu-west-1.amazoncognito.com", "clientId": "c",
                   "idpUrl": "https://cognito-idp.eu-west-1.amazonaws.com/", "userPoolId": "eu-west-1_abc"}}


def test_the_csp_connects_to_the_origins_config_json_points_at():
    # Given a deployed site's config (live boards, sign-in) / Then the page may connect to their origins, each once
    assert headers.connect_origins(CONFIG) == (
        "wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com",
        "https://alleycat-1a2b.auth.eu-west-1.amazoncognito.com", "https://cognito-idp.eu-west-1.amazonaws.com")
    # And the local stack's (stand-ins on ports of their own), repeated origins once
    local = {"events": {"realtime": "ws://127.0.0.1:4001/event/realtime"},
             "auth": {"domain": "http://127.0.0.1:4002", "idpUrl": "http://127.0.0.1:4002/"}}
    assert headers.connect_origins(local) == ("ws://127.0.0.1:4001", "http://127.0.0.1:4002")
    # And without push or sign-in, none but its own
    assert headers.connect_origins({"events": None}) == () == headers.connect_origins({"events": None, "auth": None})
    csp = headers.content_security_policy(headers.connect_origins(local))
    assert "connect-src 'self' ws://127.0.0.1:4001 http://127.0.0.1:4002;" in csp
    # And the MQTT broker a ride publishes to (contract v1.3's ingest): IoT Core's data endpoint, the local broker
    iot = {**CONFIG, "ingest": {"url": "wss://a1b2c3-ats.iot.eu-west-1.amazonaws.com/mqtt", "username": "u", "topic": "t"}}
    assert headers.connect_origins(iot)[-1] == "wss://a1b2c3-ats.iot.eu-west-1.amazonaws.com"
    assert headers.connect_origins({**local, "ingest": {"url": "ws://127.0.0.1:4003/mqtt"}})[-1] == "ws://127.0.0.1:4003"


def test_a_relative_url_is_no_origin():
    with pytest.raises(ValueError):
        headers.origin("/event/realtime")


def test_security_headers_as_the_browser_receives_them():
    sent = headers.security_headers(("wss://x.example",))
    assert sent == {
        "Strict-Transport-Security": "max-age=63072000; includeSubDomains",
        "Content-Security-Policy": headers.content_security_policy(("wss://x.example",)),
        "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}
    csp = sent["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self';" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp and "*" not in csp


def test_content_named_assets_are_kept_a_year_and_the_rest_revalidated(tmp_path):
    # Given a built site: the page and its content-named assets
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / "assets" / "app-ABCD2345.js").write_text("0")
    # Then the assets may be kept a year, the page is revalidated (as the site's bucket says in AWS)
    assert static_file("/assets/app-ABCD2345.js", tmp_path)[1] == {
        "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=31536000, immutable"}
    assert static_file("/", tmp_path)[1]["Cache-Control"] == "no-cache"
    assert static_file("/index.html", tmp_path)[1]["Cache-Control"] == "no-cache"
    assert headers.file_cache_control("/config.json") == "no-cache"
    # And nothing outside the site is served
    assert static_file("/../index.html", tmp_path / "assets") is None and static_file("/nope.js", tmp_path) is None
