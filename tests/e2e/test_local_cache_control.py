"""The local server passes on each answer's Cache-Control, as CloudFront will read it, and no CORS."""

NO_STORE, ONE_SECOND = "no-store", "public, max-age=1"


def test_each_route_answers_with_the_cache_control_it_promises(client):
    admin, racer = client.token("ops", ["admin"]), client.token("cc-racer")
    seen = []

    def call(method, path, body=None, token=None, *, want):
        status, headers, answer = client.exchange(method, path, body, token)
        seen.append((f"{method} {path}", (status, headers["Cache-Control"]), want))
        return answer

    # Given a class, a racer and an open race with the racer in it, made over HTTP (writes: never kept)
    call("PUT", "/classes/cc-class", {"name": "Cache"}, admin, want=(200, NO_STORE))
    call("PUT", "/racers/cc-racer", {"name": "Cee"}, racer, want=(200, NO_STORE))
    race_id = call("POST", "/classes/cc-class/races", {"startsAt": client.starts_in(60)}, admin,
                   want=(201, NO_STORE))["raceId"]
    call("PUT", f"/races/{race_id}/racers/cc-racer", None, racer, want=(200, NO_STORE))
    call("POST", f"/races/{race_id}/telemetry",
         {"samples": [{"racerId": "cc-racer", "second": 0, "cadence": 80, "resistance": 40}]}, racer,
         want=(200, NO_STORE))
    # When the public reads are asked while the race is open
    call("GET", f"/races/{race_id}", want=(200, ONE_SECOND))
    call("GET", f"/races/{race_id}/leaderboard?limit=1000", want=(200, ONE_SECOND))
    call("GET", "/classes/cc-class/races?limit=50", want=(200, "public, max-age=5"))
    call("GET", "/classes?limit=50", want=(200, "public, max-age=5"))
    call("GET", "/races?state=upcoming", want=(200, "public, max-age=5"))
    call("GET", "/races?state=someday", want=(400, ONE_SECOND))
    call("GET", "/classes/cc-class/leaderboard?limit=1000", want=(200, ONE_SECOND))
    call("GET", "/racers/cc-racer/results?limit=20", want=(200, ONE_SECOND))
    call("GET", f"/racers/cc-racer/history?raceId={race_id}", want=(200, ONE_SECOND))
    call("GET", "/races/01JD5Z6Q8X0000000000000009", want=(404, ONE_SECOND))  # may be created a moment later
    call("POST", f"/races/{race_id}/finish", None, racer, want=(403, NO_STORE))  # not an admin
    # And once the race is finished
    call("POST", f"/races/{race_id}/finish", None, admin, want=(200, NO_STORE))
    call("GET", f"/races/{race_id}", want=(200, "public, max-age=86400"))
    call("GET", f"/races/{race_id}/leaderboard", want=(200, "public, max-age=60"))
    # Then each answer had the status meant and the Cache-Control its route promises
    assert [(request, got) for request, got, want in seen if got != want] == []


def test_no_answer_carries_cors_headers(client):
    # Given the site and the API on one origin / When reading the API / Then no CORS header is sent
    _, headers, _ = client.exchange("GET", "/races/01JD5Z6Q8X0000000000000009")
    assert not [name for name in headers if name.lower().startswith("access-control-")]


def test_the_sites_files_are_kept_as_cloudfronts_bucket_says(stack):
    # Given the page the local stack serves (the built frontend, as the site's bucket holds it)
    import re
    import urllib.request

    def get(path):
        with urllib.request.urlopen(stack.url + path, timeout=30) as response:
            return response.headers["Cache-Control"], response.read().decode()

    control, page = get("/")
    assets = re.findall(r'(?:src|href)="(/assets/app-[A-Z0-9]{8}\.(?:js|css))"', page)
    # Then the page is revalidated on every load, as are /index.html and /config.json
    assert control == "no-cache" and get("/index.html")[0] == "no-cache" and get("/config.json")[0] == "no-cache"
    # And the script and stylesheet it names, by their content, may be kept a year
    assert len(assets) == 2
    assert [get(path)[0] for path in assets] == ["public, max-age=31536000, immutable"] * 2


def test_the_rides_worker_is_a_script_of_the_sites_own_kept_a_year(stack):
    # Given the app's script (the build names the ride's heartbeat worker in it: frontend/build.mjs)
    import re
    import urllib.request

    def get(path):
        with urllib.request.urlopen(stack.url + path, timeout=30) as response:
            return response.headers, response.read().decode()

    _, page = get("/")
    app = re.search(r'src="(/assets/app-[A-Z0-9]{8}\.js)"', page).group(1)
    workers = re.findall(r'"(/assets/heartbeat-[A-Z0-9]{8}\.js)"', get(app)[1])
    # When the worker it names is fetched
    assert len(workers) == 1
    headers, script = get(workers[0])
    # Then it is a script from the site's origin (the CSP's script-src 'self', which a worker falls back to,
    # allows it: no worker-src, no blob:), named by its content and kept a year, that posts its beats
    assert headers["Content-Type"].startswith("text/javascript")
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "worker-src" not in headers["Content-Security-Policy"] and "postMessage" in script
