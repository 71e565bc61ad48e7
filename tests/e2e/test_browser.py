"""The frontend in Debian's Chromium (headless) against the local stack with simulated racers."""

import re
import shutil
import threading
import time
import uuid
from pathlib import Path

import pytest

from local.demo import start_simulator
from simulator.race import Settings

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "screenshot.png"
RACERS = 12
WAIT_MS = 20_000

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists() and not shutil.which("chromium"),
                                reason="Debian chromium is not installed (make test installs it)")


@pytest.fixture(scope="module")
def race(stack):
    """A race in progress: a fresh class and racers, sent telemetry by the simulator thread."""
    tag = uuid.uuid4().hex[:8]
    settings = Settings(racers=RACERS, speed=5, races=1, duration=300,
                        class_id=f"browser-{tag}", class_name="Browser hill", racer_prefix=f"b{tag}")
    stop = threading.Event()
    simulator, thread = start_simulator(stack, settings, stop, show_progress=False)
    for _ in range(600):
        if simulator.current_race or not thread.is_alive():
            break
        stop.wait(0.05)
    assert simulator.current_race, "the simulator did not create a race"
    yield settings, simulator.current_race
    stop.set()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(stack):
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context(viewport={"width": 900, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    yield page
    context.close()


def board_scores(page) -> list[str]:
    return page.eval_on_selector_all("table.board tbody tr", "rows => rows.map(r => r.innerText)")


def test_landing_page_leads_to_the_live_leaderboard_which_changes(stack, race, page):
    settings, race_id = race
    # Given the frontend served by the local stack, with the demo class prefilled
    page.goto(stack.url + "/")
    assert page.input_value("input[name=classId]") == "demo-class"
    # When a visitor opens the class and its running race
    page.fill("input[name=classId]", settings.class_id)
    page.click("button[type=submit]")
    page.click(f"a[href='#/races/{race_id}']")
    # Then every racer has a row on the live leaderboard
    page.wait_for_function(f"document.querySelectorAll('table.board tbody tr').length === {RACERS}")
    page.wait_for_function("[...document.querySelectorAll('table.board tbody tr td.num')]"
                           ".some(td => td.textContent !== '0' && td.textContent !== '–')")
    before = board_scores(page)
    # And the scores move on while the race runs, without losing rows
    page.wait_for_function("before => JSON.stringify([...document.querySelectorAll('table.board tbody tr')]"
                           ".map(r => r.innerText)) !== JSON.stringify(before)", arg=before)
    after = board_scores(page)
    assert len(after) == RACERS and after != before
    assert page.text_content(".status") == "live"
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


def test_the_board_shows_a_page_and_the_signed_in_racers_own_row_below_it(stack, race, page):
    settings, race_id = race
    # Given pages of 5 rows (the page size a test may set; 100 otherwise) and the racer ranked last
    rows = 5
    standings = page.request.get(f"{stack.url}/races/{race_id}/leaderboard?limit={RACERS}").json()["items"]
    last = standings[-1]["racerId"]
    page.goto(stack.url + "/")
    page.evaluate("rows => { localStorage.setItem('alleycat.pageRows', rows); localStorage.removeItem('alleycat.racerId'); }",
                  str(rows))
    # When that racer says "This is me" on their page
    page.goto(f"{stack.url}/#/racers/{last}/{race_id}")
    page.click("button.mine-toggle")
    assert page.evaluate("localStorage.getItem('alleycat.racerId')") == last
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/leaderboard" in request.url else None)
    # And opens the race's board
    page.goto(f"{stack.url}/#/races/{race_id}")
    # Then the board shows the top page, and their own row apart below it, marked as theirs
    page.wait_for_selector("table.board tbody tr.mine")
    page.wait_for_function(f"document.querySelectorAll('table.board tbody tr').length >= {rows}")
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
    page.wait_for_function(f"document.querySelectorAll('table.board tbody tr').length >= {2 * rows}")
    assert 2 * rows in {int(url.split("limit=")[1].split("&")[0]) for url in asked}
    page.evaluate("() => { localStorage.removeItem('alleycat.pageRows'); localStorage.removeItem('alleycat.racerId'); }")


# --- live boards pushed over the Event API (frontend/src/push.js) ---------------------------------

PUSH_SCREENSHOT = SCREENSHOT.with_name("screenshot-push.png")
LEADERBOARD_GET = "**/races/*/leaderboard*"


@pytest.fixture
def fresh_page(browser):
    """A page of its own (its own socket, its own routes), and what it did, in the order it did it:
    ``"read"`` for each board read over HTTP (tests add their own marks). Playwright hands this
    process the page's events in order, so the list orders them whatever the machine's load."""
    context = browser.new_context(viewport={"width": 900, "height": 700})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.events = []
    page.on("request", lambda request: "/leaderboard" in request.url and page.events.append("read"))
    yield page
    context.close()


def leader_second(page) -> int:
    return max(int(cell) for cell in page.eval_on_selector_all(
        "table.board tbody tr td.num.hide-narrow", "cells => cells.map(c => c.textContent)") if cell.isdigit())


def test_pushed_updates_show_on_the_board_without_a_poll(stack, race, fresh_page):
    page, (settings, race_id) = fresh_page, race
    # Given the race page, subscribed to its race's channel
    page.goto(f"{stack.url}/#/races/{race_id}")
    page.wait_for_selector("section[data-feed=push]")
    page.wait_for_function(f"document.querySelectorAll('table.board tbody tr').length === {RACERS}")
    assert page.text_content(".feed") == "pushed"
    page.wait_for_timeout(500)  # the board read again on subscribing has landed
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
    page.screenshot(path=str(PUSH_SCREENSHOT), full_page=True)


def reads_since(page, mark: int) -> int:
    return page.events[mark:].count("read")


def wait_until(page, condition, seconds: float = 20) -> None:
    """Lets the page run (its events reach this process) until ``condition()``, at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s: {page.events[-20:]}"
        page.wait_for_timeout(100)


def test_the_page_polls_while_the_socket_is_down_and_reads_the_board_again_on_reconnecting(stack, race, fresh_page):
    page, (settings, race_id) = fresh_page, race
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
    # and then stops polling: in 2.5 s more, at most the one poll that was already under way
    page.wait_for_timeout(2_500)
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
