"""The race, class, racer and home pages in Debian's Chromium, issue 41's small defects: an 80-character name
with no space fits a 390 px phone (the score column in view); a racer's results say when each race was and
the place of the field ("1st of 2"); an open race's racer page shows one total, the seconds stored so far;
the race page never counts fewer racers than its board shows; the site has an icon; a page that finds nothing
at its address keeps no dangling "Home /".

On the stack whose clock the tests move (``manual_clock/conftest.py``): rides are posted through the API for
seconds that have happened by the stack's clock (races that started 90 s before it).
"""

import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from alleycat.clock import epoch

from .browsing import after_the_history_writer, new_page
from .test_fair_results import Race, eventually

PHONE = 390
LONG_NAME = "Bartholomew" * 7 + "Xtr"  # 80 characters, no space
TZ = "Asia/Kolkata"  # UTC+5:30 all year: a time shown in UTC, or with the wrong minutes, does not pass for local
TZ_OFFSET = timedelta(hours=5, minutes=30)


def output(cadence, resistance):
    """The contract's output of one second."""
    return round((cadence + 35) * (resistance + 65) / 100, 4)


@pytest.fixture(scope="module")
def finished(client):
    """A finished race of a class of its own: a racer with an 80-character name (ranked 1st) and another (2nd)."""
    assert len(LONG_NAME) == 80 and " " not in LONG_NAME
    race = Race(client)
    assert client.call("PUT", f"/classes/{race.class_id}", {"name": LONG_NAME}, race.admin)[0] == 200
    long_racer, other = race.join(LONG_NAME, "bike"), race.join("Short Name", "bike")
    race.ride(long_racer, 80, 50, range(0, 60))
    race.ride(other, 60, 40, range(0, 60))
    race.counted([long_racer, other], 59)
    race.finish()
    eventually(lambda: client.call("GET", f"/racers/{long_racer}/results")[1]["items"][0]["rank"] == 1)
    eventually(lambda: client.call("GET", f"/classes/{race.class_id}/leaderboard")[1]["items"])
    return {"race": race, "long": long_racer, "other": other}


def fits(page, what):
    width = page.evaluate("() => document.documentElement.scrollWidth")
    wide = page.evaluate("""w => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w || e.scrollWidth > e.clientWidth + 1)
        .map(e => `${e.tagName}.${e.className}: ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 8)""", PHONE)
    assert width <= PHONE, f"{what}: the page is {width} px wide on a {PHONE} px screen: {wide}"


def in_view(page, selector, what):
    """The element is shown and wholly within the phone's width."""
    box = page.locator(selector).first.bounding_box()
    assert box and box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= PHONE, f"{what}: {box}"


def test_an_80_character_name_fits_a_phone_on_the_race_class_racer_and_home_pages(stack, browser, finished):
    race, long_racer = finished["race"], finished["long"]
    page = new_page(browser, stack, width=PHONE, height=800)
    # The race's board: the name wraps, the score column is on the screen
    page.goto(f"{stack.url}/#/races/{race.race_id}")
    page.wait_for_selector(f"table.board tr[data-racer='{long_racer}']")
    fits(page, "race board")
    in_view(page, f"table.board tr[data-racer='{long_racer}'] td:nth-child(4)", "the race board's score")
    # The class's all-time board
    page.goto(f"{stack.url}/#/classes/{race.class_id}/leaderboard")
    page.wait_for_selector(f"table.board tr[data-racer='{long_racer}']")
    fits(page, "class board")
    in_view(page, f"table.board tr[data-racer='{long_racer}'] td:nth-child(4)", "the class board's best score")
    # The class's page (its name is 80 characters too)
    page.goto(f"{stack.url}/#/classes/{race.class_id}")
    page.wait_for_selector(f"li.race a[href='#/races/{race.race_id}']")
    fits(page, "class page")
    # The racer's page: their name, their results' score and rank
    page.goto(f"{stack.url}/#/racers/{long_racer}")
    page.wait_for_selector(f"table.results tr[data-race='{race.race_id}'] td.rank")
    page.wait_for_function("name => document.querySelector('h1')?.textContent === name", arg=LONG_NAME)
    fits(page, "racer page")
    in_view(page, f"table.results tr[data-race='{race.race_id}'] td:nth-child(3)", "the result's score")
    in_view(page, f"table.results tr[data-race='{race.race_id}'] td.rank", "the result's rank")
    # The home page, the class among the classes
    page.goto(f"{stack.url}/#/")
    page.wait_for_selector(f".class-list a[href='#/classes/{race.class_id}']")
    fits(page, "home page")
    page.context.close()


def test_a_racers_results_say_the_day_and_the_place_of_the_field(stack, browser, finished):
    race, long_racer, other = finished["race"], finished["long"], finished["other"]
    context = browser.new_context(viewport={"width": 1000, "height": 800}, locale="en-GB", timezone_id=TZ)
    context.clock.install(time=stack.clock.now())
    page = context.new_page()
    starts = datetime.fromtimestamp(epoch(race.client.call("GET", f"/races/{race.race_id}")[1]["startsAt"]), UTC) + TZ_OFFSET
    for racer, place in ((long_racer, "1st of 2"), (other, "2nd of 2")):
        page.goto(f"{stack.url}/#/racers/{racer}")
        row = f"table.results tr[data-race='{race.race_id}']"
        page.wait_for_function("row => document.querySelector(`${row} td.rank`)?.textContent.includes(' of ')", arg=row)
        # The place of the field: the race's two racers
        assert page.inner_text(f"{row} td.rank") == place
        # and the race's day and local time, whatever day it is read
        label = page.inner_text(f"{row} td.name a")
        day = rf"{starts:%a},? {starts.day} {starts:%b},? {starts:%H:%M}"
        assert re.search(day, label), (label, day)
    context.close()


def test_an_open_races_racer_page_shows_one_total_the_seconds_stored_so_far(stack, client, browser):
    race = Race(client)
    racer = race.join("Open Rider", "bike")
    race.ride(racer, 70, 45, range(0, 10))
    race.counted([racer], 9)
    after_the_history_writer(stack, lambda: race.client.call("GET", f"/racers/{racer}/history?raceId={race.race_id}")[1],
                             lambda found: len(found["races"][0]["samples"]) == 10, "the 10 seconds stored")
    # Given the result as it reads while the race is open: it counts a chunk of seconds once the chunk is
    # done (docs/architecture.md), here seconds 0–5 of the 10 stored (the history and the board have all 10)
    def lagging_result(route):
        answer = route.fetch()
        body = answer.json()
        for item in body["items"]:
            if item["raceId"] == race.race_id:
                item.update(score=round(6 * output(70, 45), 4), lastSecond=5)
        route.fulfill(response=answer, body=json.dumps(body))

    page = new_page(browser, stack)
    page.route(re.compile(rf"/racers/{racer}/results"), lagging_result)
    # When the racer's page shows that race
    page.goto(f"{stack.url}/#/racers/{racer}/{race.race_id}")
    page.wait_for_selector("p.totals a")
    # Then its total and its result's score are one figure, the 10 seconds stored so far (as the board has them)
    stored = round(10 * output(70, 45), 4)
    shown = f"{stored:,.1f}".removesuffix(".0")  # as the page shows a score: to one place, none for a whole number
    assert page.inner_text("p.totals").startswith(f"10 seconds · score {shown} so far ·")
    assert page.inner_text(f"table.results tr[data-race='{race.race_id}'] td:nth-child(3)") == shown
    assert race.board()[0]["score"] == stored
    page.unroute_all(behavior="ignoreErrors")
    page.context.close()


def test_the_race_page_never_counts_fewer_racers_than_its_board_shows(stack, client, browser):
    race = Race(client)
    joined = [race.join(f"Joiner {n}", "bike") for n in (1, 2)]
    eventually(lambda: len(race.board()) == 2)

    def not_counted_yet(route):
        """The race as read before the stream counted the joins (its racerCount a few seconds behind)."""
        answer = route.fetch()
        route.fulfill(response=answer, body=json.dumps({**answer.json(), "racerCount": 0}))

    page = new_page(browser, stack)
    page.route(re.compile(rf"/races/{race.race_id}$"), not_counted_yet)
    page.goto(f"{stack.url}/#/races/{race.race_id}")
    page.wait_for_selector(f"table.board tr[data-racer='{joined[1]}']")
    assert page.inner_text("section > p.muted").startswith("2 racers ·")
    page.unroute_all(behavior="ignoreErrors")
    page.context.close()


def test_the_site_has_an_icon_and_asks_for_no_missing_file(stack, browser):
    page = new_page(browser, stack)
    missing = []
    page.on("response", lambda response: response.status == 404 and missing.append(response.url))
    page.goto(f"{stack.url}/#/")
    page.wait_for_selector(".class-list :is(li, p.empty)")
    href = page.get_attribute("link[rel=icon]", "href")
    icon = page.request.get(f"{stack.url}{href}")
    assert icon.status == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert icon.text().startswith("<svg")
    assert missing == []
    page.context.close()


@pytest.mark.parametrize("address", ["#/races/no-such-race", "#/classes/no-such-class",
                                     "#/classes/no-such-class/leaderboard", "#/racers/no-such-racer"])
def test_a_page_that_finds_nothing_keeps_no_dangling_way_back(stack, browser, address):
    page = new_page(browser, stack, width=PHONE, height=800)
    page.goto(f"{stack.url}/{address}")
    page.wait_for_selector("main p.error")
    assert page.inner_text("main p.error") == "Not found."
    assert page.inner_text(".top #crumbs").strip() == "Home"
    page.context.close()
