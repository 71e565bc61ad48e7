"""Race day for admins, in Debian's Chromium: on a class's page an admin renames the class and schedules
its races (checked in the page; a retry after a lost answer makes one race); on a race's page they
finish it early, after confirming. A racer and a signed-out viewer see none of it.

On the stack whose clock the tests move (``manual_clock/conftest.py``), the browser's clock started at it.
"""

import math
import time
import uuid

import pytest

from alleycat.clock import epoch, iso

from .browsing import DOCS, back_on, new_page, sign_up_on_the_pools_page, signed_in_admin, signed_in_as


@pytest.fixture(scope="module")
def admin(browser, stack):
    page = signed_in_admin(browser, stack)
    yield page
    page.context.close()


@pytest.fixture
def new_class(client):
    """A class of its own (made through the API): new_class(name, description) -> classId."""
    token = client.token("ops", ["admin"])

    def make(name="Hill climb", description="Long seated climbs"):
        class_id = f"day-{uuid.uuid4().hex[:8]}"
        assert client.call("PUT", f"/classes/{class_id}", {"name": name, "description": description}, token)[0] == 200
        return class_id

    return make


def race_ids(client, class_id):
    return [race["raceId"] for race in client.call("GET", f"/classes/{class_id}/races?limit=50")[1]["items"]]


def writes(page, path_end):
    """The POST and PUT requests the page sends to a path ending so: (method, Idempotency-Key)."""
    sent = []
    page.on("request", lambda request: request.method in ("POST", "PUT") and request.url.endswith(path_end)
            and sent.append((request.method, request.headers.get("idempotency-key"))))
    return sent


def open_class(page, stack, class_id, name):
    page.goto(f"{stack.url}/#/classes/{class_id}")
    page.wait_for_function("name => document.querySelector('h1')?.textContent === name", arg=name)


def offered_start(now_ms):
    """The start the form offers at ``now_ms``: the next whole 5 minutes at least 2 minutes ahead (s)."""
    return math.ceil((now_ms + 120_000) / 300_000) * 300


def test_an_admin_renames_a_class_and_sees_its_new_name(stack, client, admin, new_class):
    page = admin
    class_id = new_class()
    open_class(page, stack, class_id, "Hill climb")
    sent = writes(page, f"/classes/{class_id}")
    # When the admin opens "Rename class": it holds the class's name and description
    page.click(".rename-class-box summary")
    page.wait_for_function("() => document.querySelector('#rename-name')?.value === 'Hill climb'")
    assert page.input_value("#rename-description") == "Long seated climbs"
    # Then an empty name is refused in the page, nothing sent
    page.fill("#rename-name", "  ")
    page.click(".rename-class button[type=submit]")
    assert page.inner_text("#rename-name-message") == "The name cannot be empty."
    assert sent == []
    # When they rename it
    page.fill("#rename-name", "Hill climb · long")
    page.fill("#rename-description", "Twenty minutes seated")
    page.click(".rename-class button[type=submit]")
    # Then the page says so and shows the new name; the API has it
    page.wait_for_selector(".rename-class .form-message.saved")
    assert page.inner_text("h1") == "Hill climb · long" and page.inner_text(".top #crumbs") == "Home / Hill climb · long"
    assert sent == [("PUT", None)]
    assert client.call("GET", f"/classes/{class_id}/races")[1]["name"] == "Hill climb · long"
    listed = client.call("GET", "/classes?limit=100")[1]["items"]
    assert {"classId": class_id, "name": "Hill climb · long", "description": "Twenty minutes seated", "metric": "output"} in listed


def test_an_admin_schedules_a_race_checked_in_the_page_and_it_is_up_next(stack, client, admin, new_class):
    page = admin
    class_id = new_class()
    answered_after = time.monotonic()
    open_class(page, stack, class_id, "Hill climb")
    sent = writes(page, f"/classes/{class_id}/races")
    # When the admin opens "Schedule a race": it offers the next whole 5 minutes by the server's clock, 5
    # minutes long. The page knows that clock from its answers' Date headers (whole seconds), and its estimate
    # runs on in real time since the last answer while the stack's clock stays put: the page's own clock
    # (installed at the stack's time, then running) decides nothing.
    server_ms = stack.clock.now() * 1000
    page.click(".schedule-race-box summary")
    offered = page.evaluate("value => new Date(value).getTime() / 1000", page.input_value("#race-start"))
    ran_on_ms = (time.monotonic() - answered_after) * 1000
    assert offered in {offered_start(server_ms - 1000), offered_start(server_ms + ran_on_ms + 1000)}
    assert page.input_value("#race-duration") == "5"
    # Then a length out of 1–60 minutes, or a start of a race that would be over, is refused in the page
    for minutes, said in (("0", "at least 1 minute"), ("90", "90 is too long"), ("", "How long")):
        page.fill("#race-duration", minutes)
        page.click(".schedule-race button[type=submit]")
        page.wait_for_function("said => document.querySelector('#race-duration-message.error')?.textContent.includes(said)",
                               arg=said)
    page.fill("#race-duration", "7")
    page.fill("#race-start", "2020-01-01T10:00")
    page.click(".schedule-race button[type=submit]")
    assert "has passed" in page.inner_text("#race-start-message.error")
    assert sent == []  # nothing was sent
    # When they schedule a 7-minute race 10 minutes after the offered start
    start = offered + 600
    page.fill("#race-start", page.evaluate(
        "at => { const d = new Date(at * 1000), p = (n) => String(n).padStart(2, '0');"
        " return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`; }",
        start))
    page.click(".schedule-race button[type=submit]")
    # Then the form says so, with a link to the race, and the race is up next, counting down
    page.wait_for_selector(".schedule-race .form-message.saved a")
    race_id = page.get_attribute(".schedule-race .form-message a", "href").removeprefix("#/races/")
    row = f".upcoming li.race:has(a[href='#/races/{race_id}'])"
    page.wait_for_selector(f"{row} .countdown")
    assert page.inner_text(f"{row} .countdown").startswith("starts in ")
    assert len(sent) == 1 and sent[0][1]  # one POST, with an Idempotency-Key
    # and the API has it, as asked
    race = client.call("GET", f"/races/{race_id}")[1]
    assert (race["classId"], race["startsAt"], race["durationSeconds"], race["status"]) == (class_id, iso(start), 420, "open")
    # And the admin tools fit a desktop and a phone
    page.click(".rename-class-box summary")
    page.wait_for_function("() => document.querySelector('#rename-name')?.value === 'Hill climb'")
    for width, name in ((1000, "screenshot-race-day.png"), (390, "screenshot-race-day-phone.png")):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing overflows a phone
        page.screenshot(path=str(DOCS / name), full_page=True)
    page.set_viewport_size({"width": 1000, "height": 900})


def local_minute(page, at: float) -> str:
    """The minute ``at`` (epoch s) falls in, as the page's <input type="datetime-local"> holds it."""
    return page.evaluate(
        "at => { const d = new Date(at * 1000), p = (n) => String(n).padStart(2, '0');"
        " return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`; }", at)


def test_a_race_scheduled_now_starts_when_racers_can_still_make_it(stack, client, admin, new_class):
    page = admin
    class_id = new_class()
    open_class(page, stack, class_id, "Hill climb")
    page.click(".schedule-race-box summary")
    # Given the stack's clock 35 s into a minute (the 20:45:35)
    stack.clock.advance((35 - stack.clock.now() % 60) % 60)
    now = stack.clock.now()
    page.clock.set_system_time(now)
    # When the admin schedules a race "now": the minute under way
    page.fill("#race-start", local_minute(page, now))
    page.click(".schedule-race button[type=submit]")
    page.wait_for_selector(".schedule-race .form-message.saved a")
    # Then it starts at a whole minute in the future, a minute or more away: racers can join before it
    # (the minute under way began 35 s ago: as asked, the race would have been live at once)
    race_id = page.get_attribute(".schedule-race .form-message a", "href").removeprefix("#/races/")
    start = epoch(client.call("GET", f"/races/{race_id}")[1]["startsAt"])
    assert start % 60 == 0 and 60 <= start - now < 120 + 5, (start, now)
    assert "earliest start racers can make" in page.inner_text(".schedule-race .form-message")
    # and it is up next, counting down
    page.wait_for_selector(f".upcoming li.race:has(a[href='#/races/{race_id}']) .countdown")
    # And an earlier minute is refused in the page, naming the earliest start
    page.fill("#race-start", local_minute(page, now - 60))
    page.click(".schedule-race button[type=submit]")
    assert "has passed" in page.inner_text("#race-start-message.error")


def test_pressing_schedule_again_after_a_lost_answer_makes_one_race(stack, client, admin, new_class):
    page = admin
    class_id = new_class()
    open_class(page, stack, class_id, "Hill climb")
    sent = writes(page, f"/classes/{class_id}/races")
    # Given the network fails twice: before the request reaches the API, then after the API made the race
    failures = ["before", "after"]

    def flaky(route):
        if route.request.method != "POST" or not failures:
            return route.continue_()
        if failures.pop(0) == "after":
            route.fetch()  # the API answers 201; the answer is lost on the way back
        route.abort()

    races_of_the_class = lambda url: url.endswith(f"/classes/{class_id}/races")
    page.route(races_of_the_class, flaky)
    page.click(".schedule-race-box summary")
    # When the admin presses "Schedule race", and again each time it says it failed
    for tries in (1, 2):
        page.click(".schedule-race button[type=submit]")
        page.wait_for_selector(".schedule-race .form-message.error")
        assert "Press “Schedule race” again" in page.inner_text(".schedule-race .form-message")
        assert len(race_ids(client, class_id)) == tries - 1  # the second try made it, unseen
    page.click(".schedule-race button[type=submit]")
    # Then the third answer is the race the second made: one race, every try with the same key
    page.wait_for_selector(".schedule-race .form-message.saved")
    assert len(race_ids(client, class_id)) == 1
    assert len(sent) == 3 and len({key for _, key in sent}) == 1
    # and a race asked for after it is a new one, with a new key
    page.click(".schedule-race button[type=submit]")
    page.wait_for_function("() => document.querySelectorAll('.upcoming li.race').length === 2")
    assert len(race_ids(client, class_id)) == 2 and sent[3][1] != sent[0][1]
    page.unroute(races_of_the_class)


def test_an_admin_finishes_a_live_race_early_after_confirming(stack, client, admin, new_class):
    page = admin
    class_id = new_class()
    token = client.token("ops", ["admin"])
    race = client.call("POST", f"/classes/{class_id}/races", {"startsAt": client.starts_in(0), "durationSeconds": 600}, token)[1]
    race_id = race["raceId"]
    page.goto(f"{stack.url}/#/races/{race_id}")
    page.wait_for_selector(".finish-race button.finish")
    assert page.inner_text(".finish-race").split() == ["Finish", "now", "ADMIN"]  # the button and its badge, nothing else
    # When the admin presses "Finish now", then "No"
    page.click(".finish-race button.finish")
    assert page.inner_text(".finish-race .question") == "Finish the race now?"
    page.click(".finish-race button.no")
    page.wait_for_selector(".finish-race button.finish")
    assert client.call("GET", f"/races/{race_id}")[1]["status"] == "open"
    # And "Yes" when the API fails: the page says so in words, and the race is still open
    finish = lambda url: url.endswith(f"/races/{race_id}/finish")
    page.route(finish, lambda route: route.fulfill(status=503, json={"message": "Service Unavailable"}))
    page.click(".finish-race button.finish")
    page.click(".finish-race button.yes")
    page.wait_for_selector(".finish-race .error")
    assert page.inner_text(".finish-race .error") == "Not finished: Service Unavailable."
    page.unroute(finish)
    page.set_viewport_size({"width": 360, "height": 800})
    page.click(".finish-race button.finish")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # the question fits a phone
    # When they press "Finish now", then "Yes"
    page.click(".finish-race button.yes")
    # Then the page shows the race finished, and so does the API; the button is gone
    page.wait_for_selector("h1 .state .status.finished")
    assert client.call("GET", f"/races/{race_id}")[1]["status"] == "finished"
    page.wait_for_selector(".finish-race", state="hidden")
    assert stack.clock.now() < epoch(race["startsAt"]) + 600  # early: its end had not come
    page.set_viewport_size({"width": 1000, "height": 900})


def test_a_racer_and_a_viewer_see_no_admin_tools(stack, client, browser, admin, new_class):
    class_id = new_class()
    token = client.token("ops", ["admin"])
    race_id = client.call("POST", f"/classes/{class_id}/races",
                          {"startsAt": client.starts_in(0), "durationSeconds": 600}, token)[1]["raceId"]
    # Given a racer who signed up on the user pool's pages, and a viewer signed out
    racer = new_page(browser, stack)
    racer.goto(f"{stack.url}/#/classes/{class_id}")
    racer.click(".top .account button.sign-in")
    email = f"rider-{uuid.uuid4().hex[:8]}@example.com"
    sign_up_on_the_pools_page(racer, stack, email)
    back_on(racer, stack, f"#/classes/{class_id}")
    signed_in_as(racer, email)
    viewer = new_page(browser, stack)
    # And the admin, who sees the tools on both pages
    admin.goto(f"{stack.url}/#/races/{race_id}")
    admin.wait_for_selector(".finish-race button.finish")
    open_class(admin, stack, class_id, "Hill climb")
    assert admin.locator(".class-admin details").count() == 2
    for page in (racer, viewer):
        # When they look at the class and at its live race
        open_class(page, stack, class_id, "Hill climb")
        page.wait_for_selector(f"li.race a[href='#/races/{race_id}']")
        assert page.locator(".class-admin > *").count() == 0
        page.goto(f"{stack.url}/#/races/{race_id}")
        page.wait_for_selector("h1 .state .status.open")
        page.clock.run_for(2000)  # the finish button follows the race's status each second
        # Then there is no rename, no schedule, no finish
        assert page.locator(".finish-race > *").count() == 0
        assert page.locator("text=Finish now").count() == 0
    assert client.call("GET", f"/races/{race_id}")[1]["status"] == "open"
    for page in (racer, viewer):
        page.context.close()
