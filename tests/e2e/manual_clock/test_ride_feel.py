"""A ride that feels like a race (issue 41), in Chromium on the stack whose clock the tests move
(``manual_clock/conftest.py``): a new racer rides among 99 others and sees the 3-2-1 before the start
(with sound cues, once turned on), the time left, the riders just ahead and behind with the gaps to
them, the field as a strip; after the finish and a reload, still "You placed … of 100".

The race page is set to pages of 20 rows (``alleycat.pageRows``): the rider, in the middle of the field,
is below the board's first page, as a rider of a 1,000-racer race is below its top 100; the page must
read the riders around them itself. Everything expected is worked out here: the gaps from the API's
board, the time left from the race's second, the place from the board's order.
"""

import random
import re
import time
import uuid

import pytest

from .browsing import DOCS, claims, new_page, session, signed_up_new
from .test_ride import joined, new_race, one_second, start_ride, until

DURATION = 60
FIELD = 99
PAGE_ROWS = 20
FIELD_EVERY = 5  # the field's seconds are posted this many at a time
PARTS = 2  # a second of the race in halves: this test reads what the page shows, not when it sends (test_ride.py)
LONG = 80  # characters of the longest names: unbroken, they must not widen a phone's page
# The page's stand-in for the Web Audio API's tones: each oscillator started is noted with its frequency.
TONES = """(() => {
  window.__tones = [];
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.__tones.push(this.frequency.value); return start.apply(this, args); };
})();"""
FIRST = ["Wren", "Jade", "Ola", "Tomás", "Mei", "Ravi", "Ines", "Kofi", "Lena", "Yusuf", "Aiko", "Bram"]
LAST = ["Nakamura", "Ueda", "Okafor", "Silva", "Lindqvist", "Haddad", "Moreau", "Kowalski", "Reyes", "Banda"]


@pytest.fixture(scope="module")
def rider(browser, stack):
    page = new_page(browser, stack, width=1280, height=1100)
    page.context.add_init_script(TONES)
    page.context.add_init_script(f"localStorage.setItem('alleycat.pageRows', '{PAGE_ROWS}');")
    signed_up_new(page, stack, "#/", "feel")
    yield {"page": page, "sub": claims(session(page)["idToken"])["sub"]}
    page.context.close()


def join_field(client, race, rng):
    """99 racers joined by an admin, each with a steady cadence and resistance from the simulator's ranges
    (docs: 30–90 rpm, 33–86 %); three have names of 80 characters with no space, the strongest among them."""
    field = []
    for index in range(FIELD):
        racer_id = f"feel-{uuid.uuid4().hex[:10]}"
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        if index < 3:
            name = ("Longname" * 10)[:LONG - 1] + str(index)
        cadence, resistance = (90, 86) if index == 0 else (rng.randrange(30, 91), rng.randrange(33, 86))
        assert client.call("PUT", f"/racers/{racer_id}", {"name": name}, race["admin"])[0] == 200
        assert client.call("PUT", f"/races/{race['raceId']}/racers/{racer_id}", {"equipment": "bike"}, race["admin"])[0] == 200
        field.append((racer_id, cadence, resistance))
    return field


def field_rides(client, race, field, seconds):
    """The field's ``seconds`` in one batch (as a bike that lost its connection a while sends them)."""
    samples = [{"racerId": racer_id, "second": second, "cadence": cadence, "resistance": resistance}
               for second in seconds for racer_id, cadence, resistance in field]
    status, answer = client.call("POST", f"/races/{race['raceId']}/telemetry", {"samples": samples}, race["admin"])
    assert status == 200 and answer["accepted"] == len(samples), answer


def every_second_in(client, race):
    """The race's board once it holds every racer's every second (the stream takes real time)."""
    deadline = time.monotonic() + 20
    while True:
        board = client.call("GET", f"/races/{race['raceId']}/leaderboard?limit=1000")[1]["items"]
        if len(board) == FIELD + 1 and all(row["lastSecond"] == DURATION - 1 for row in board):
            return board
        assert time.monotonic() < deadline, "the board never held every second"
        time.sleep(0.05)


def count_shown(page):
    return page.evaluate("() => { const c = document.querySelector('.ride .ride-count'); return c && !c.hidden ? c.textContent : null; }")


def gaps_shown(page):
    return page.evaluate("""() => [...document.querySelectorAll('.ride .gap-line')].map((line) => ({
      racer: line.dataset.racer, who: line.querySelector('.who').textContent, gap: line.querySelector('.gap').textContent }))""")


def points(text):
    """A gap as the page writes it ("1,234.5 ahead") -> 1234.5."""
    return float(re.match(r"([\d,]+(?:\.\d)?) (ahead|behind)$", text).group(1).replace(",", ""))


WIDER = """w => {
  const wider = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(node);
    const right = (node.nodeType === 1 ? node.getBoundingClientRect() : range.getBoundingClientRect()).right + scrollX;
    if (right > w) wider.push(`${node.nodeType === 1 ? node.tagName.toLowerCase() + '.' + node.getAttribute('class') : 'text in ' + node.parentElement.tagName.toLowerCase() + '.' + node.parentElement.getAttribute('class')} ${Math.round(right)}`);
  }
  return wider.slice(-8);
}"""


def fits(page, width):
    """Nothing on the page is wider than ``width`` px (the failure names what is)."""
    page.set_viewport_size({"width": width, "height": 1100})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width, page.evaluate(WIDER, width)


def test_a_rider_in_a_field_of_100_sees_the_count_the_time_left_the_gaps_and_the_field(stack, client, rider):
    page, racer_id = rider["page"], rider["sub"]
    rng = random.Random(41)
    race = new_race(stack, client, page, lead=60, duration=DURATION)
    field = join_field(client, race, rng)
    # Given a new racer on the race's ride page, named and joined
    page.goto(f"{stack.url}/#/races/{race['raceId']}/ride")
    start_ride(page)
    page.fill("#ride-name", "Kit Cadence")
    page.click(".ride-name button[type=submit]")
    joined(page)
    # who turns the sound cues on (off until then), and sets 75 rpm at 50 % before the start
    assert not page.is_checked(".ride .sound-toggle input")
    page.check(".ride .sound-toggle input")
    page.evaluate("() => document.activeElement.blur()")  # the page's keys leave a focused input alone
    for _ in range(15):
        page.keyboard.press("ArrowUp")
    assert page.inner_text("#ride-cadence") == "75 rpm"
    # When the start comes, a tenth of a second at a time (the stack's clock first, as in ``one_second``)
    stack.clock.advance(race["start"] - 5 - stack.clock.now())
    page.clock.pause_at(race["start"] - 5)
    seen = []
    for _ in range(65):  # to 1.5 s into the race
        stack.clock.advance(0.1)
        page.clock.run_for(100)
        shown = count_shown(page)
        if not seen or seen[-1] != shown:
            seen.append(shown)
            if shown == "2":  # what docs/ride.md shows
                page.set_viewport_size({"width": 390, "height": 1100})
                page.locator(".ride").screenshot(path=str(DOCS / "screenshot-ride-count-phone.png"))
                page.set_viewport_size({"width": 1280, "height": 1100})
    # Then the page counts 3, 2, 1, go (by the server's clock), and only then; each with its tone
    assert seen == [None, "3", "2", "1", "Go", None], seen
    assert page.evaluate("() => window.__tones") == [660, 660, 660, 990]
    # When the racer rides the race, and the field with them
    until(page, "() => Number(document.querySelector('.ride-sent').dataset.counted) >= 1")
    field_rides(client, race, field, range(3))
    posted = 3  # the field's seconds posted so far
    for second in range(3, DURATION):
        one_second(page, stack, counted_at_least=second, parts=PARTS)
        if second + 1 - posted == FIELD_EVERY or second == DURATION - 1:  # a write per racer for several seconds
            field_rides(client, race, field, range(posted, second + 1))
            posted = second + 1
        if second == 30:
            # Then the time left is the race's length less the second under way
            clock = page.inner_text(".ride .ride-clock")
            minutes, seconds, shown_second = map(int, re.fullmatch(r"(\d+):(\d\d) left · second (\d+) of 60", clock).groups())
            assert minutes * 60 + seconds == DURATION - (shown_second - 1), clock
            assert abs((shown_second - 1) - (stack.clock.now() - race["start"])) <= 1.5, clock
            # and the ride shows the riders around, the field with the rider marked: what docs/ride.md shows
            until(page, "() => document.querySelectorAll('.ride .ride-field rect[height]:not([height=\"0\"])').length > 5")
            for width, name in ((1280, "screenshot-ride-field.png"), (390, "screenshot-ride-field-phone.png")):
                fits(page, width)
                page.screenshot(path=str(DOCS / name))
            page.set_viewport_size({"width": 1280, "height": 1100})
    for _ in range(3):
        one_second(page, stack, parts=PARTS)  # the time is up; the last seconds are in
    # Then, every second in (the board still), the riders just ahead and behind are the API's, with their gaps
    board = every_second_in(client, race)
    ranked = [row for row in board if row["review"] != "disqualified"]
    at = next(index for index, row in enumerate(ranked) if row["racerId"] == racer_id)
    assert PAGE_ROWS < at + 1 < len(ranked), "the rider is below the board's first page, not last"
    ahead, mine, behind = ranked[at - 1], ranked[at], ranked[at + 1]
    expected = [(ahead["racerId"], ahead["score"] - mine["score"]), (behind["racerId"], mine["score"] - behind["score"])]

    you = f"You · {ordinal(at + 1)}"

    def settled():
        """The gap lines name the API's neighbours with its final gaps, and the rider's mark their final place
        (a read of the field, or of the rider's own row below the board's first page, already under way as the
        last seconds were counted may hold older scores and ranks: the page reads each again within 5 s)."""
        lines = gaps_shown(page)
        return page.inner_text(".ride .ride-field .you-label") == you and len(lines) == 2 and all(line["racer"] == racer and re.match(r"[\d,]+(\.\d)? (ahead|behind)$", line["gap"])
                                       and abs(points(line["gap"]) - gap) <= 0.051 for line, (racer, gap) in zip(lines, expected, strict=True))

    def waited_for(seconds):
        deadline = time.monotonic() + seconds
        while not settled() and time.monotonic() < deadline:
            time.sleep(0.05)
        return settled()

    # The field is read again every 5 s of the race's time; 6 s more keep the race short of its finisher
    # (10 s after its end). Between seconds, a read in flight is given the real time to come back.
    for _ in range(6):
        if waited_for(1):
            break
        one_second(page, stack, parts=PARTS)
    shown = gaps_shown(page)
    assert waited_for(10), (shown, expected)
    shown = gaps_shown(page)
    assert [line["who"] for line in shown] == [ahead["name"], behind["name"]]
    assert shown[0]["gap"].endswith("ahead") and shown[1]["gap"].endswith("behind")
    # and the field strip holds every rider, the rider marked in their band
    bars = page.evaluate("() => [...document.querySelectorAll('.ride .ride-field rect')].filter((r) => r.getAttribute('height') !== '0').length")
    assert bars >= 5
    assert "100 riders" in page.inner_text(".ride .ride-field figcaption")
    assert page.inner_text(".ride .ride-field .you-label") == you
    # When the race is finished
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200
    until(page, "() => document.querySelector('.ride').dataset.state === 'finished'")
    placed = f"You placed {ordinal(at + 1)} of {len(board)}"
    until(page, "text => document.querySelector('.ride-place').textContent.startsWith(text)", placed)
    assert page.evaluate("() => window.__tones").count(990) == 2  # the finish's three rising tones end on 990 Hz
    # And when the page is opened again after the finish
    page.reload()
    until(page, "() => document.querySelector('.ride')?.dataset.state === 'finished'")
    until(page, "text => document.querySelector('.ride .ride-result:not([hidden])')?.textContent.startsWith(text)", placed)
    result_score = re.search(r"score ([\d,.]+)", page.inner_text(".ride .ride-result")).group(1)
    assert float(result_score.replace(",", "")) == pytest.approx(mine["score"], abs=0.051)
    assert page.is_checked(".ride .sound-toggle input")  # the sound choice is kept
    # and nothing on the ride page, 80-character names and all, is wider than a phone
    fits(page, 390)
    page.set_viewport_size({"width": 1280, "height": 1100})


def ordinal(n):
    return f"{n}{'th' if 11 <= n % 100 <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
