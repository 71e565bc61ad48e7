"""The frontend in Debian's Chromium (headless) against the local stack with simulated racers."""

import base64
import json
import re
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright import sync_api

from local.demo import start_simulator
from simulator.race import Settings

from .conftest import CspWatchedBrowser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "screenshot.png"
HOME_SCREENSHOT = SCREENSHOT.with_name("screenshot-home.png")
HOME_PHONE_SCREENSHOT = SCREENSHOT.with_name("screenshot-home-phone.png")
RACERS = 12
WAIT_MS = 20_000


@pytest.fixture(scope="module")
def race(stack, client):
    """A race in progress: a fresh class and racers, sent telemetry by the simulator thread."""
    tag = uuid.uuid4().hex[:8]
    # Over HTTP (the viewers' pages are what is tested here; the demo's test rides over MQTT): a loaded machine's
    # late answers stretch the race as they always did, so it is still live for the module's last test.
    settings = Settings(racers=RACERS, speed=5, races=1, duration=300, start_lead=0, transport="http",
                        class_id=f"browser-{tag}", class_name="Browser hill", racer_prefix=f"b{tag}")
    stop = threading.Event()
    simulator, thread = start_simulator(stack, settings, stop, show_progress=False)
    for _ in range(600):
        if simulator.current_race or not thread.is_alive():
            break
        stop.wait(0.05)
    assert simulator.current_race, "the simulator did not create a race"
    starts = parse_time(client.call("GET", f"/races/{simulator.current_race}")[1]["startsAt"]).timestamp()
    stop.wait(max(0.0, starts - time.time()))  # live from here: the simulator rides from its start
    yield settings, simulator.current_race
    stop.set()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(stack):
    assert Path(CHROMIUM).exists(), f"no Debian Chromium at {CHROMIUM}: `make test` installs it (`make chromium`)"
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield CspWatchedBrowser(browser)  # every page under the real CSP, a violation failing its test (conftest)
        browser.close()


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context(viewport={"width": 900, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    yield page
    context.close()


# --- what a viewer reads: races as "<class name> · <start>", in the viewer's time zone -------------

# Viewers' pages run in India's time zone (UTC+5:30 all year): a time shown in UTC, or with the
# wrong minutes, does not pass for local time.
VIEWER_TZ = "Asia/Kolkata"
VIEWER_OFFSET = timedelta(hours=5, minutes=30)


def parse_time(iso: str) -> datetime:
    return datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def label_pattern(class_name: str, starts_at: str) -> str:
    """A race's label: "Hill climb · 18:30" (local time), the day before the time when not today."""
    local = parse_time(starts_at) + VIEWER_OFFSET
    return rf"^{re.escape(class_name)} · (?:.+ )?{local:%H:%M}$"


@pytest.fixture
def viewer(browser):
    """new(width, height) -> a page in a context of its own, in the viewer's time zone."""
    contexts = []

    def new(width=900, height=900):
        context = browser.new_context(viewport={"width": width, "height": height}, timezone_id=VIEWER_TZ,
                                      locale="en-GB")
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        return page

    yield new
    for context in contexts:
        context.close()


def find_in_list(page, section: str, label):
    """The row of the home page's list under ``section`` ("live", "upcoming", "class-list") whose
    label matches ``label`` (a regex), following "More" as a viewer would while other rows come first."""
    page.wait_for_selector(f"section.{section} :is(li, p.empty:not([hidden]), p.error:not([hidden]))")
    rows = page.locator(f"section.{section} li", has=page.locator("a.label", has_text=re.compile(label)))
    while not rows.count():
        more = page.locator(f"section.{section} button.more")
        assert more.is_visible(), f"no {label} under {section}: {page.inner_text(f'section.{section}')}"
        shown = page.locator(f"section.{section} li").count()
        more.click()
        page.wait_for_function("([selector, shown]) => document.querySelectorAll(selector).length > shown",
                               arg=[f"section.{section} li", shown])
    return rows.first


def find_row(page, section: str, class_name: str, starts_at: str):
    """The row of a race (of that class, starting then) in a home page list."""
    return find_in_list(page, section, label_pattern(class_name, starts_at))


def board_scores(page) -> list[str]:
    return page.eval_on_selector_all("table.board tbody tr", "rows => rows.map(r => r.innerText)")


def test_a_viewer_reaches_a_live_board_in_two_clicks_from_home(stack, client, race, viewer):
    settings, race_id = race
    page = viewer()
    started = client.call("GET", f"/races/{race_id}")[1]["startsAt"]
    # Given the home page, with the race under "Live now" as its class and start time
    page.goto(stack.url + "/")
    row = find_row(page, "live", settings.class_name, started)
    # When the viewer clicks it (one click: the issue asks for two at most)
    row.locator("a.label").click()
    # Then every racer has a row on the live leaderboard
    page.wait_for_function(f"() => document.querySelectorAll('table.board tbody tr').length === {RACERS}")
    page.wait_for_function("() => [...document.querySelectorAll('table.board tbody tr td.num')]"
                           ".some(td => td.textContent !== '0' && td.textContent !== '–')")
    before = board_scores(page)
    # And the scores move on while the race runs, without losing rows
    page.wait_for_function("before => JSON.stringify([...document.querySelectorAll('table.board tbody tr')]"
                           ".map(r => r.innerText)) !== JSON.stringify(before)", arg=before)
    after = board_scores(page)
    assert len(after) == RACERS and after != before
    assert page.text_content(".status") == "live"
    # And the race reads as its class and start, the way back as its class: never the race's id
    page.wait_for_function("name => document.querySelector('h1')?.textContent.startsWith(name)", arg=settings.class_name)
    assert re.match(label_pattern(settings.class_name, started), page.text_content("h1 > span"))
    assert page.text_content("#crumbs") == f"Home / {settings.class_name}"
    assert race_id not in page.inner_text("body")
    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)


def test_racer_page_draws_the_output_chart(stack, race, page):
    settings, race_id = race
    # Given the live leaderboard / When the visitor opens the leader's page
    page.goto(f"{stack.url}/#/races/{race_id}")
    page.click("table.board tbody tr:first-child td.name a")
    page.wait_for_url(f"**/#/racers/**/{race_id}")
    # Then a chart canvas appears and has pixels drawn on it
    canvas = page.wait_for_selector(".chart canvas")
    assert canvas is not None
    page.wait_for_function("""() => {
        const canvas = document.querySelector('.chart canvas');
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let drawn = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) drawn++;
        return drawn > 500;
    }""")
    assert "seconds" in page.text_content("section p.muted")
    # And its races read as their class and start, never as their ids
    labels = page.eval_on_selector_all("table.results td.name a", "links => links.map(a => a.textContent)")
    assert labels and all(re.match(rf"^{settings.class_name} · (?:.+ )?\d\d:\d\d$", label) for label in labels), labels
    assert re.match(rf"^{settings.class_name} · (?:.+ )?\d\d:\d\d output per second$", page.text_content("section h2"))
    assert race_id not in page.inner_text("body")


def unsigned_jwt(claims: dict) -> str:
    part = lambda data: base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    return f"{part({'alg': 'none'})}.{part(claims)}.x"


def sign_in_as(page, client, racer_id: str) -> None:
    """The session the frontend keeps after a sign-in (frontend/src/auth.js), for a racer of the shared stack:
    its access token from POST /local/token, an ID token naming the racer (the frontend only reads it)."""
    session = {"accessToken": client.token(racer_id), "refreshToken": "unused",
               "idToken": unsigned_jwt({"sub": racer_id, "email": f"{racer_id}@example.com", "token_use": "id"})}
    page.evaluate("session => localStorage.setItem('alleycat.session', JSON.stringify({ ...session, expiresAt: Date.now() + 3600000 }))",
                  session)
    page.reload()  # read when the page loads, as after a sign-in's callback


def test_the_board_shows_a_page_and_the_signed_in_racers_own_row_below_it(stack, client, race, page):
    settings, race_id = race
    # Given pages of 5 rows (the page size a test may set; 100 otherwise) and the racer ranked last
    rows = 5
    standings = page.request.get(f"{stack.url}/races/{race_id}/leaderboard?limit={RACERS}").json()["items"]
    last = standings[-1]["racerId"]
    page.goto(stack.url + "/")
    page.evaluate("rows => localStorage.setItem('alleycat.pageRows', rows)", str(rows))
    # When that racer is signed in (a session as the sign-in keeps one) and opens their page
    sign_in_as(page, client, last)
    page.goto(f"{stack.url}/#/racers/{last}/{race_id}")
    # Then it says it is theirs, and the header says who is signed in
    page.wait_for_selector("p.yours:not([hidden])")
    page.wait_for_function("name => document.querySelector('.top .account a.who')?.textContent === name",
                           arg=standings[-1]["name"])
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/leaderboard" in request.url else None)
    # And opens the race's board
    page.goto(f"{stack.url}/#/races/{race_id}")
    # Then the board shows the top page, and their own row apart below it, marked as theirs
    page.wait_for_selector("table.board tbody tr.mine")
    page.wait_for_function(f"() => document.querySelectorAll('table.board tbody tr').length >= {rows}")
    shown = page.eval_on_selector_all("table.board tbody tr", "rows => rows.map(r => r.className)")
    assert len(shown) in (rows, rows + 1)
    if len(shown) == rows + 1:
        assert "apart" in shown[-1] and "mine" in shown[-1]
    # And every board request asked a whole number of pages (answers viewers share at the edge)
    limits = {int(url.split("limit=")[1].split("&")[0]) for url in asked}
    assert rows in limits and all(limit % rows == 0 or limit == 1000 for limit in limits), limits
    # When the viewer asks for the next page
    page.click("button.more")
    # Then two pages show (the racer's own row apart only if still below them)
    page.wait_for_function(f"() => document.querySelectorAll('table.board tbody tr').length >= {2 * rows}")
    assert 2 * rows in {int(url.split("limit=")[1].split("&")[0]) for url in asked}
    page.evaluate("() => { localStorage.removeItem('alleycat.pageRows'); localStorage.removeItem('alleycat.session'); }")


# --- live boards pushed over the Event API (frontend/src/push.js) ---------------------------------

PUSH_SCREENSHOT = SCREENSHOT.with_name("screenshot-push.png")
LEADERBOARD_GET = "**/races/*/leaderboard*"
RACE_GET = re.compile(r"/races/[^/?]+$")


@pytest.fixture
def fresh_page(browser):
    """A page of its own (its own socket, its own routes), and what it did, in the order it did it:
    ``"read"`` for each board read over HTTP, ``"landed"`` as each is answered (or fails), ``"race"`` for
    each read of the race itself (tests add their own marks). Playwright hands this process the page's
    events in order, so the list orders them whatever the machine's load."""
    context = browser.new_context(viewport={"width": 900, "height": 700})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.events = []
    page.on("request", lambda request: "/leaderboard" in request.url and page.events.append("read"))
    page.on("request", lambda request: RACE_GET.search(request.url) and page.events.append("race"))
    for answered in ("requestfinished", "requestfailed"):
        page.on(answered, lambda request: "/leaderboard" in request.url and page.events.append("landed"))
    yield page
    context.close()


def leader_second(page) -> int:
    return max(int(cell) for cell in page.eval_on_selector_all(
        "table.board tbody tr td.num.hide-narrow", "cells => cells.map(c => c.textContent)") if cell.isdigit())


def test_pushed_updates_show_on_the_board_without_a_poll(stack, client, race, fresh_page):
    page, (_, race_id) = fresh_page, race
    # Given the race page, subscribed to its race's channel
    page.goto(f"{stack.url}/#/races/{race_id}")
    page.wait_for_selector("section[data-feed=push]")
    page.wait_for_function(f"() => document.querySelectorAll('table.board tbody tr').length === {RACERS}")
    assert page.text_content(".feed") == "pushed"
    board_reads_landed(page)  # the board read again on subscribing among them
    # When every read of the board over HTTP fails from now on
    blocked = []
    page.route(LEADERBOARD_GET, lambda route: (blocked.append(route.request.url), route.abort()))
    before, second = board_scores(page), leader_second(page)
    # Then the board still moves on: rows, scores and seconds come from pushed messages
    page.wait_for_function("s => Math.max(...[...document.querySelectorAll('table.board tbody tr td.num.hide-narrow')]"
                           ".map(c => +c.textContent || 0)) >= s + 3", arg=second)
    after = board_scores(page)
    assert after != before and len(after) == RACERS
    # And the page did not even try to poll
    assert blocked == []
    assert page.get_attribute("section", "data-feed") == "push"
    # And every row pushed by its racer's key (message v4) has that racer's name, ranks 1..N in score order
    names = {item["racerId"]: item["name"] for item in client.call("GET", f"/races/{race_id}/leaderboard?limit=100")[1]["items"]}
    shown = page.eval_on_selector_all("table.board tbody tr", """rows => rows.map((r) => ({racer: r.dataset.racer,
        name: r.querySelector("td.name a").textContent, rank: r.querySelector("td.rank").textContent,
        score: r.querySelector("td.score").textContent}))""")
    assert len(names) == RACERS and [names[row["racer"]] for row in shown] == [row["name"] for row in shown]
    assert [row["rank"] for row in shown] == [str(rank) for rank in range(1, RACERS + 1)]
    scores = [float(row["score"].replace(",", "")) for row in shown]
    assert scores == sorted(scores, reverse=True)
    page.screenshot(path=str(PUSH_SCREENSHOT), full_page=True)


def board_reads_landed(page) -> None:
    """Once every board read the page has made so far is answered. A request the page makes after them
    comes back first: their events (in order) have reached this process by then."""
    page.evaluate("() => fetch('/', { cache: 'no-store' }).then((answer) => answer.text())")
    wait_until(page, lambda: page.events.count("landed") == page.events.count("read"))


def reads_since(page, mark: int) -> int:
    return page.events[mark:].count("read")


def wait_until(page, condition, seconds: float = 20) -> None:
    """Lets the page run (its events reach this process) until ``condition()``, at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s: {page.events[-20:]}"
        page.wait_for_timeout(100)


def test_the_page_polls_while_the_socket_is_down_and_reads_the_board_again_on_reconnecting(stack, race, fresh_page):
    page, (_, race_id) = fresh_page, race
    sockets = {"refuse": True, "open": []}

    def socket_route(ws):
        if sockets["refuse"]:
            ws.close()  # as a network that drops the connection at once
        else:
            page.events.append("connected")
            ws.connect_to_server()
            sockets["open"].append(ws)

    page.route_web_socket(re.compile(r"/event/realtime$"), socket_route)
    # Given a page whose socket cannot connect
    page.goto(f"{stack.url}/#/races/{race_id}")
    page.wait_for_selector("section[data-feed=poll]")
    # Then it polls the board, again and again, as without push, and the board moves on
    start = len(page.events)
    second = leader_second(page) if page.query_selector("table.board tbody tr") else 0
    wait_until(page, lambda: reads_since(page, start) >= 3 and leader_second(page) > second)
    # When the socket can connect again (the page retries with backoff)
    sockets["refuse"] = False
    page.wait_for_selector("section[data-feed=push]", timeout=40_000)
    connected = page.events.index("connected")
    # Then it reads the board once more (what it missed)
    wait_until(page, lambda: reads_since(page, connected) >= 1)
    # and then stops polling: at most the one poll that was already under way, by the time the page has
    # read the race twice more (its polling goes on reading only the race, every 3 s: polls due meanwhile)
    wait_until(page, lambda: page.events[connected:].count("race") >= 2)
    assert 1 <= reads_since(page, connected) <= 2, page.events[connected:]
    # When the connection drops
    sockets["refuse"] = True
    dropped = len(page.events)
    sockets["open"][-1].close()
    # Then the page polls again, and on reconnecting reads the board again
    page.wait_for_selector("section[data-feed=poll]")
    wait_until(page, lambda: reads_since(page, dropped) >= 2)
    sockets["refuse"] = False
    page.wait_for_selector("section[data-feed=push]", timeout=40_000)
    reconnected = len(page.events) - 1 - page.events[::-1].index("connected")
    wait_until(page, lambda: reads_since(page, reconnected) >= 1)


@pytest.mark.parametrize("feed", ["push", "poll"])
def test_the_race_page_counts_the_racers_as_they_join(stack, client, viewer, feed):
    page = viewer()
    tag = uuid.uuid4().hex[:8]
    admin = client.token("browser-admin", ["admin"])
    class_id = f"join-{tag}"
    assert client.call("PUT", f"/classes/{class_id}", {"name": f"Join {tag}"}, admin)[0] == 200
    status, race = client.call("POST", f"/classes/{class_id}/races",
                               {"startsAt": client.starts_in(600), "durationSeconds": 300}, admin)
    assert status == 201, race
    if feed == "poll":
        page.route_web_socket(re.compile(r"/event/realtime$"), lambda ws: ws.close())
    # Given the page of a race to come, pushed to (or polling), no racer in it yet
    page.goto(f"{stack.url}/#/races/{race['raceId']}")
    page.wait_for_selector(f"section[data-feed={feed}]")
    summary = "count => document.querySelector('section > p.muted')?.textContent.startsWith(count + ' ·')"
    page.wait_for_function(summary, arg="0 racers")
    for count in (1, 2):
        # When a racer joins
        racer_id = f"j{tag}-{count}"
        assert client.call("PUT", f"/racers/{racer_id}", {"name": f"Joiner {count}"}, admin)[0] == 200
        assert client.call("PUT", f"/races/{race['raceId']}/racers/{racer_id}", token=admin)[0] == 200
        # Then the page counts them, without being opened again
        page.wait_for_function(summary, arg="1 racer" if count == 1 else f"{count} racers")


# --- the home page and the class page: races across classes, by class name and start time --------
# (after the tests above, which need the simulated race still running: these do not)

@pytest.fixture(scope="module")
def schedule(client):
    """A class of its own ("Hill climb <tag>") with a race live now (one racer) and two upcoming:
    in 5 and in 65 minutes."""
    tag = uuid.uuid4().hex[:8]
    admin = client.token("browser-admin", ["admin"])
    class_id, name = f"hill-{tag}", f"Hill climb {tag}"
    assert client.call("PUT", f"/classes/{class_id}", {"name": name, "description": "Long seated climbs"}, admin)[0] == 200
    now = datetime.now(UTC).replace(microsecond=0)

    def create(starts_at, duration):
        status, race = client.call("POST", f"/classes/{class_id}/races",
                                   {"startsAt": iso(starts_at), "durationSeconds": duration}, admin)
        assert status == 201, race
        return race

    live = create(now, 3600)
    soon, later = create(now + timedelta(minutes=5), 300), create(now + timedelta(minutes=65), 300)
    racer_id = f"h{tag}"
    client.call("PUT", f"/racers/{racer_id}", {"name": "Hill rider"}, admin)
    assert client.call("PUT", f"/races/{live['raceId']}/racers/{racer_id}", token=admin)[0] == 200
    # The lists' racer counts follow the races through the stream (a second or so)
    deadline = time.monotonic() + 10
    while not any(item["raceId"] == live["raceId"] and item["racerCount"] == 1
                  for item in client.call("GET", "/races?state=live&limit=100")[1]["items"]):
        assert time.monotonic() < deadline, "the live race's card never counted its racer"
        time.sleep(0.1)
    return {"classId": class_id, "name": name, "live": live, "soon": soon, "later": later}


def race_ids_shown(page, races) -> list[str]:
    text = page.inner_text("body")
    return [race["raceId"] for race in races if race["raceId"] in text]


def test_home_lists_live_and_upcoming_races_by_class_and_start_and_the_classes(stack, client, schedule, viewer):
    page = viewer(1100, 900)
    name, live, soon, later = schedule["name"], schedule["live"], schedule["soon"], schedule["later"]
    # Given a class with a race live now and two to come / When a viewer opens the home page
    page.goto(stack.url + "/")
    # Then "Live now" has the live race, as its class and local start time, with its racers
    row = find_row(page, "live", name, live["startsAt"])
    assert row.locator(".status").inner_text().lower() == "live"
    assert row.locator(".racers").inner_text() == "1 racer"
    # And "Up next" has both upcoming races, soonest first, counting down
    first, second = find_row(page, "upcoming", name, soon["startsAt"]), find_row(page, "upcoming", name, later["startsAt"])
    assert re.fullmatch(r"starts in [45]:\d\d", first.locator(".countdown").inner_text()), first.inner_text()
    assert re.fullmatch(r"starts in 1:0[45]:\d\d", second.locator(".countdown").inner_text()), second.inner_text()
    labels = page.eval_on_selector_all("section.upcoming a.label", "links => links.map(a => a.textContent)")
    assert labels.index(first.locator("a.label").inner_text()) < labels.index(second.locator("a.label").inner_text())
    # And "Classes" links to the class's page, with its description
    card = find_in_list(page, "class-list", f"^{re.escape(name)}$")
    assert card.locator("a.label").get_attribute("href") == f"#/classes/{schedule['classId']}"
    assert card.locator(".description").inner_text() == "Long seated climbs"
    # And no race reads as its id
    assert race_ids_shown(page, [live, soon, later]) == []
    # When the viewer opens the class from there
    card.locator("a.label").click()
    # Then its page is titled with its name
    page.wait_for_function("name => document.querySelector('h1')?.textContent === name", arg=name)


def test_a_race_nobody_joined_yet_says_so_and_one_with_racers_does_not(stack, schedule, viewer):
    page = viewer(390, 844)
    # Given an upcoming race with no racer / When a viewer opens it / Then the empty board says why
    page.goto(f"{stack.url}/#/races/{schedule['soon']['raceId']}")
    page.wait_for_selector("section p.empty:not([hidden])")
    assert page.inner_text("section p.empty").startswith("No racer has joined yet")
    # And the live race, one racer in, shows its row and no such message
    page.goto(f"{stack.url}/#/races/{schedule['live']['raceId']}")
    page.wait_for_function("() => document.querySelectorAll('table.board tbody tr').length === 1")
    assert page.locator("section p.empty").is_hidden()


def test_class_page_shows_its_upcoming_races_first_with_a_countdown_then_the_rest(stack, schedule, viewer):
    page = viewer(1100, 900)
    name, live, soon, later = schedule["name"], schedule["live"], schedule["soon"], schedule["later"]
    # Given a class with a race live now and two to come / When a viewer opens its page
    page.goto(f"{stack.url}/#/classes/{schedule['classId']}")
    page.wait_for_selector("section.upcoming li")
    # Then "Up next" lists the upcoming races, soonest first, as "<class> · <time>", counting down
    upcoming = page.locator("section.upcoming li")
    assert upcoming.count() == 2
    for index, race in enumerate([soon, later]):
        assert re.match(label_pattern(name, race["startsAt"]), upcoming.nth(index).locator("a.label").inner_text())
        assert upcoming.nth(index).locator(".countdown").inner_text().startswith("starts in ")
    # And then the rest: the live race
    rest = page.locator("section.races li")
    assert rest.count() == 1
    assert re.match(label_pattern(name, live["startsAt"]), rest.first.locator("a.label").inner_text())
    assert rest.first.locator(".status").inner_text().lower() == "live"
    assert page.text_content("#crumbs") == f"Home / {name}"
    assert race_ids_shown(page, [live, soon, later]) == []
    # When the viewer opens the next race
    upcoming.first.locator("a.label").click()
    # Then its page reads as its class and start, and counts down to it
    page.wait_for_function("name => document.querySelector('h1 > span')?.textContent.startsWith(name)", arg=name)
    assert re.match(label_pattern(name, soon["startsAt"]), page.text_content("h1 > span"))
    page.wait_for_selector("h1 .countdown")
    assert page.text_content("h1 .countdown").startswith("starts in ")
    assert race_ids_shown(page, [soon]) == []


# --- the lists' behaviour on a controlled clock and controlled answers (page.route) ---------------
# These answer GET /classes and GET /races themselves, by design: they control what the lists hold
# and when, and the browser's clock, which the stack's own clock would not follow.

NOW = datetime(2026, 11, 22, 12, 56, 48, tzinfo=UTC)  # 18:26:48 for the viewer


class Lists:
    """Contract-shaped answers for GET /classes, GET /races and the routes of the races they name."""

    CLASSES = [
        {"classId": "endurance", "name": "Endurance ride with a rather long class name for small screens",
         "description": "Ninety minutes in zone two; bring water and a towel."},
        {"classId": "hill-climb", "name": "Hill climb", "description": "Long seated climbs at high resistance."},
        {"classId": "recovery", "name": "Recovery spin", "description": "Easy legs, high cadence."},
        {"classId": "sprint", "name": "Sprint intervals", "description": "Thirty seconds all out, thirty easy."},
    ]

    def __init__(self, now: datetime = NOW):
        names = {c["classId"]: c["name"] for c in self.CLASSES}
        counter = iter(range(1000))

        def race(class_id, starts, racers=0, status="open"):
            """A race, created now: its raceId sorts after those of the races created before it."""
            return {"raceId": f"01M897NTX1WN9FHV91QR5S{next(counter):04d}", "classId": class_id,
                    "className": names[class_id], "startsAt": iso(starts), "durationSeconds": 300,
                    "status": status, "racerCount": racers}

        self.race = race

        # Created in this order (a raceId sorts by creation): the finished ones, oldest first, then the rest.
        self.finished = [race("hill-climb", now - timedelta(hours=hours, minutes=26, seconds=48), 20 + hours,
                              "finished") for hours in (3, 2, 1)][::-1]
        self.live = [race("hill-climb", now - timedelta(minutes=2, seconds=48), 87),
                     race("sprint", now - timedelta(minutes=4, seconds=48), 1)]
        self.upcoming = [race("recovery", now + timedelta(minutes=4, seconds=12), 3),
                         race("hill-climb", now + timedelta(hours=1, minutes=3, seconds=12)),
                         race("endurance", now + timedelta(days=1, hours=2, minutes=3, seconds=12)),
                         race("sprint", now + timedelta(days=3, minutes=3, seconds=12))]
        self.page_size = {"upcoming": 10, "live": 10}
        self.failing: set[str] = set()  # paths answered with a 500
        self.asked: list[str] = []  # every list request (a class's races too), in order
        self.unlisted: set[str] = set()  # classes GET /classes leaves out (made since the app read it)

    def every_race(self):
        return self.live + self.upcoming + self.finished

    def install(self, page):
        page.route(lambda url: urlsplit(url).path in ("/classes", "/races"), self.answer_list)
        page.route(re.compile(r"/(classes/[^/]+/races|races/[^/]+(/leaderboard)?)(\?.*)?$"), self.answer_race)

    def answer_list(self, route):
        url = urlsplit(route.request.url)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        self.asked.append(f"{url.path}?{url.query}")
        if url.path in self.failing:
            return route.fulfill(status=500, json={"message": "Internal server error"})
        if url.path == "/classes":
            listed = [c for c in self.CLASSES if c["classId"] not in self.unlisted]
            return route.fulfill(json={"items": listed, "nextToken": None})
        state = query["state"]
        items = {"live": self.live, "upcoming": self.upcoming, "finished": self.finished}[state]
        start = int(query.get("nextToken", "0"))
        end = start + min(int(query["limit"]), self.page_size[state])
        route.fulfill(json={"state": state, "items": items[start:end],
                            "nextToken": str(end) if end < len(items) else None})

    def everything_asked(self, page, rounds: int = 50) -> None:
        """Once the page has asked, by now, all it was going to: a request the page makes after them comes
        back through the same routes (which take requests in order) with nothing asked meanwhile (no
        request following an answer)."""
        for _ in range(rounds):
            before = len(self.asked)
            page.evaluate("() => fetch('/classes?mark').then((answer) => answer.json())")
            self.asked.remove("/classes?mark")
            if len(self.asked) == before:
                return
        raise AssertionError(f"still asking after {rounds} round trips: {self.asked[-10:]}")

    def class_races(self, class_id: str, query: str = "") -> dict:
        """GET /classes/{class_id}/races: the class's races, newest created first, a page at a time."""
        query = {key: values[0] for key, values in parse_qs(query).items()}
        name = next(c["name"] for c in self.CLASSES if c["classId"] == class_id)
        races = sorted((r for r in self.every_race() if r["classId"] == class_id), key=lambda r: r["raceId"],
                       reverse=True)
        start = int(query.get("nextToken", "0"))
        end = start + int(query.get("limit", "50"))
        items = [{key: r[key] for key in ("raceId", "startsAt", "durationSeconds", "status", "racerCount")}
                 for r in races[start:end]]
        return {"classId": class_id, "name": name, "items": items, "nextToken": str(end) if end < len(races) else None}

    def answer_race(self, route):
        url = urlsplit(route.request.url)
        parts = url.path.strip("/").split("/")
        if parts[0] == "classes":
            self.asked.append(f"{url.path}?{url.query}")
            return route.fulfill(json=self.class_races(parts[1], url.query))
        race = next(r for r in self.every_race() if r["raceId"] == parts[1])
        if len(parts) == 2:
            return route.fulfill(json={key: value for key, value in race.items() if key != "className"})
        rows = [{"rank": n + 1, "racerId": f"r{n}", "name": f"Rider {n + 1}", "score": 9000.0 - 321.5 * n,
                 "lastSecond": 168} for n in range(race["racerCount"])]
        route.fulfill(json={"raceId": race["raceId"], "classId": race["classId"], "status": race["status"],
                            "items": rows})


def open_home(page, stack, lists, now=NOW):
    """The home page at ``now`` on a paused clock, its lists answered by ``lists``."""
    lists.install(page)
    page.clock.install(time=now - timedelta(minutes=1))
    page.goto(stack.url + "/")
    page.clock.pause_at(now)
    page.wait_for_selector("section.upcoming li")
    page.wait_for_selector("section.class-list :is(li, p.error:not([hidden]))")


def section_labels(page, section: str) -> list[str]:
    return page.eval_on_selector_all(f"section.{section} a.label", "links => links.map(a => a.textContent)")


def test_the_countdown_ticks_each_second_then_the_race_moves_to_live_now_at_once(stack, viewer):
    page, lists = viewer(1100, 900), Lists()
    recovery = lists.upcoming[0]  # starts at 18:31:00, 4:12 from now
    open_home(page, stack, lists)
    row = page.locator("section.upcoming li").first
    assert row.locator("a.label").inner_text() == "Recovery spin · 18:31"
    # When a second passes, and another
    page.clock.run_for(1000)
    assert row.locator(".countdown").inner_text() == "starts in 4:11"
    page.clock.run_for(1000)
    assert row.locator(".countdown").inner_text() == "starts in 4:10"
    # When the clock reaches a second before the start
    page.clock.run_for(249_000)
    assert row.locator(".countdown").inner_text() == "starts in 0:01"
    # And the race starts, while the lists (kept 5 s at the edge) still have it as upcoming
    page.clock.run_for(1000)
    # Then it moves at once, on the page's clock, from "Up next" to the top of "Live now", as live
    assert section_labels(page, "live")[0] == "Recovery spin · 18:31"
    assert page.locator("section.live li").first.locator(".status").text_content() == "live"
    assert page.locator("section.live li").first.locator(".racers").inner_text() == "3 racers"
    assert "Recovery spin · 18:31" not in section_labels(page, "upcoming")
    # When the lists say so too, with the racer who joined at the start
    lists.upcoming.remove(recovery)
    lists.live.insert(0, recovery)
    recovery["racerCount"] = 4
    asked = len(lists.asked)
    # Then the page does not read them again while the edge may still answer from before the start
    page.clock.run_for(4000)
    lists.everything_asked(page)
    assert lists.asked[asked:] == []
    # But reads both once its answers are newer than the start (5 s and a second), not at the next 15 s poll
    page.clock.run_for(2000)
    page.wait_for_function("() => document.querySelector('section.live .racers')?.textContent === '4 racers'")
    assert {"/races?state=live&limit=10", "/races?state=upcoming&limit=10"} <= set(lists.asked[asked:])
    assert section_labels(page, "live")[0] == "Recovery spin · 18:31"
    assert "Recovery spin · 18:31" not in section_labels(page, "upcoming")
    # And on the page of a race about to start, the countdown turns to "live" at its start
    soon = lists.upcoming[0]
    soon["startsAt"] = iso(NOW + timedelta(minutes=4, seconds=21))  # 3 s from now
    page.goto(f"{stack.url}/#/races/{soon['raceId']}")
    page.wait_for_selector("h1 .countdown")
    page.wait_for_function("() => document.querySelector('h1 > span')?.textContent === 'Hill climb · 18:31'")
    page.clock.run_for(1000)
    assert page.text_content("h1 .countdown") == "starts in 0:02"
    page.clock.run_for(2000)
    assert page.text_content("h1 .status") == "live"


def test_pages_read_races_by_class_and_local_time_and_fit_a_phone(stack, viewer):
    for width, height, screenshot in ((1100, 900, HOME_SCREENSHOT), (390, 844, HOME_PHONE_SCREENSHOT)):
        page, lists = viewer(width, height), Lists()
        open_home(page, stack, lists)
        page.clock.run_for(1000)
        # Given the home page on a desktop, then on a phone
        # Then each list reads as class and local start time (the day too when not today), counting down
        assert section_labels(page, "live") == ["Hill climb · 18:24", "Sprint intervals · 18:22"]
        assert section_labels(page, "upcoming") == [
            "Recovery spin · 18:31", "Hill climb · 19:30",
            "Endurance ride with a rather long class name for small screens · tomorrow 20:30",
            "Sprint intervals · Wed 25 Nov, 18:30"]
        assert page.eval_on_selector_all("section.upcoming .countdown", "els => els.map(e => e.textContent)") == [
            "starts in 4:11", "starts in 1:03:11", "starts in 1 d 2 h", "starts in 3 d 0 h"]
        assert page.eval_on_selector_all("section.live .racers", "els => els.map(e => e.textContent)") == [
            "87 racers", "1 racer"]
        assert section_labels(page, "class-list") == [c["name"] for c in Lists.CLASSES]
        assert race_ids_shown(page, lists.every_race()) == []
        # And nothing is wider than the screen
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        page.screenshot(path=str(screenshot), full_page=True)
        # And so on the class page and on a race's page
        for path in ("#/classes/hill-climb", f"#/races/{lists.live[0]['raceId']}"):
            page.goto(f"{stack.url}/{path}")
            page.wait_for_function("() => document.querySelector('h1')?.textContent.startsWith('Hill climb')")
            page.wait_for_selector(":is(section.races li, table.board tbody tr)")
            assert race_ids_shown(page, lists.every_race()) == []
            assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), path
        page.close()


def test_empty_lists_say_what_to_do_and_a_list_that_fails_says_so(stack, viewer):
    page, lists = viewer(), Lists()
    lists.live.clear()
    lists.failing.add("/classes")
    # Given no race live and the class list failing / When a viewer opens the home page
    open_home(page, stack, lists)
    # Then "Live now" says so and where to look, "Up next" still lists its races
    page.wait_for_selector("section.live p.empty:not([hidden])")
    assert page.inner_text("section.live p.empty").startswith("No race is live right now.")
    assert len(section_labels(page, "upcoming")) == 4
    # And the classes say they could not be read, with a way to try again
    page.wait_for_selector("section.class-list p.error:not([hidden])")
    assert page.inner_text("section.class-list p.error").startswith("Could not load the classes")
    # When the list answers again and the viewer tries again
    lists.failing.clear()
    page.click("section.class-list button.retry")
    # Then the classes show, the error is gone
    page.wait_for_selector("section.class-list li")
    assert page.locator("section.class-list p.error").is_hidden()


def test_more_follows_the_next_token(stack, viewer):
    page, lists = viewer(), Lists()
    lists.page_size["upcoming"] = 3
    open_home(page, stack, lists)
    # Given the first page of upcoming races (three, and a nextToken)
    assert len(section_labels(page, "upcoming")) == 3
    # When the viewer asks for more
    page.click("section.upcoming button.more")
    # Then the next page follows the first, asked with its nextToken, and there is no more to ask
    page.wait_for_function("() => document.querySelectorAll('section.upcoming li').length === 4")
    assert section_labels(page, "upcoming")[3] == "Sprint intervals · Wed 25 Nov, 18:30"
    assert "/races?state=upcoming&limit=10&nextToken=3" in lists.asked
    assert page.locator("section.upcoming button.more").is_hidden()
    # And the next refresh (every 15 s) reads both pages again
    second_page = "/races?state=upcoming&limit=10&nextToken=3"
    asked = lists.asked.count(second_page)
    page.clock.run_for(30_000)
    for _ in range(100):
        if lists.asked.count(second_page) > asked:
            break
        page.wait_for_timeout(50)
    assert lists.asked.count(second_page) > asked
    assert len(section_labels(page, "upcoming")) == 4


def test_leaving_the_home_page_stops_its_refreshes_and_countdowns(stack, viewer):
    page, lists = viewer(), Lists()
    open_home(page, stack, lists)
    home = set(lists.asked)  # what the home page asks
    # Given the home page, a race starting in 4:12 / When the viewer goes to a class page
    page.click("section.class-list a.label >> text=Hill climb")
    page.wait_for_function("() => document.querySelector('h1')?.textContent === 'Hill climb'")
    asked = len(lists.asked)
    # Then, five minutes later (the race started, twenty refreshes were due), the home page asked nothing
    # (the class page reads lists of its own)
    page.clock.run_for(300_000)
    lists.everything_asked(page)
    assert [request for request in lists.asked[asked:] if request in home] == []


def open_class(page, stack, lists, class_id: str, now=NOW):
    """A class's page at ``now`` on a paused clock, its lists answered by ``lists``."""
    lists.install(page)
    page.clock.install(time=now - timedelta(minutes=1))
    page.goto(f"{stack.url}/#/classes/{class_id}")
    page.clock.pause_at(now)
    page.wait_for_selector("section.upcoming :is(li, p.empty:not([hidden]))")


def test_the_class_page_has_races_scheduled_before_its_fifty_newest(stack, viewer):
    page, lists = viewer(), Lists()
    # Given a class whose next race and live race were created before sixty races since (finished by now)
    lists.finished[:0] = [lists.race("hill-climb", NOW - timedelta(days=2, hours=n), 10, "finished") for n in range(60)]
    assert all(item["status"] == "finished" for item in lists.class_races("hill-climb", "limit=50")["items"])
    # When a viewer opens its page
    open_class(page, stack, lists, "hill-climb")
    page.clock.run_for(1000)
    # Then "Up next" has the next race, counting down, and "Races" the live one first
    assert section_labels(page, "upcoming") == ["Hill climb · 19:30"]
    assert page.text_content("section.upcoming .countdown") == "starts in 1:03:11"
    races = page.locator("section.races li")
    assert races.first.locator("a.label").inner_text() == "Hill climb · 18:24"
    assert races.first.locator(".status").text_content() == "live"
    assert races.count() == 1 + 50  # and the class's own newest fifty, the latest start first
    # And it read the lists across classes, a page of 100 at a time
    assert {"/races?state=upcoming&limit=100", "/races?state=live&limit=100"} <= set(lists.asked)


def test_an_older_answer_does_not_overwrite_a_newer_one_on_the_class_page(stack, viewer):
    page, lists = viewer(), Lists()
    recovery = lists.upcoming[0]  # starts at 18:31:00, 4:12 from now, 3 racers
    held = []
    open_class(page, stack, lists, "recovery")
    assert page.text_content("section.upcoming .racers") == "3 racers"
    # Given the page's next poll, whose answer is slow to come (and from before the start)
    before = lists.class_races("recovery")
    page.route("**/classes/recovery/races*", lambda route: held.append(route))
    page.clock.run_for(5000)
    wait_until(page, lambda: held)
    page.unroute("**/classes/recovery/races*")
    # When the race starts (with two racers more) and the countdown reads the class again
    recovery["racerCount"] = 5
    page.clock.run_for(247_000)
    page.wait_for_function("() => document.querySelector('section.races li.race .racers')?.textContent === '5 racers'")
    assert section_labels(page, "upcoming") == []
    # And only then the slow answer comes
    held[0].fulfill(json=before)
    lists.everything_asked(page)  # the page had the slow answer before this one
    page.clock.run_for(1000)
    # Then the page still shows the newer answer
    assert page.text_content("section.races .racers") == "5 racers"


def test_race_pages_read_the_class_names_from_the_list_of_classes_once(stack, viewer):
    page, lists = viewer(), Lists()
    lists.unlisted.add("sprint")  # a class made after the list of classes was read
    open_home(page, stack, lists)
    mark = len(lists.asked)
    # When a viewer opens races of three classes, one of them missing from the list of classes
    for race in (lists.live[0], lists.upcoming[0], lists.live[1]):
        page.goto(f"{stack.url}/#/races/{race['raceId']}")
        page.wait_for_function("name => document.querySelector('h1 > span')?.textContent.startsWith(name)",
                               arg=race["className"])
    # Then the app read the list of classes once, 100 a page, and the missing class's own list only
    asked = [request for request in lists.asked[mark:] if request.startswith("/classes")]
    assert asked == ["/classes?limit=100", "/classes/sprint/races?limit=50"], asked


@pytest.mark.parametrize("link", ["#/racers/%", "#/racers/%E0%A4%A", "#/classes/%zz/leaderboard", "#/races/%/ride",
                                  "#/racers/racer-1/%"])
def test_a_malformed_link_shows_not_found_not_loading_forever(stack, viewer, link):
    # Given a link whose percent-encoding is malformed ("%" alone, a cut-off UTF-8 sequence, "%zz")
    page = viewer()
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    # When it is opened
    page.goto(f"{stack.url}/{link}")
    # Then the page says no page has this address, with a way home; nothing threw
    page.wait_for_selector("#page p.not-found")
    assert page.inner_text("#page").startswith("Not found")
    assert "Loading" not in page.inner_text("#page") and page.is_visible("#page a[href='#/']")
    assert errors == []
