"""A race's ticker (alleycat.flows.ticking, timed by alleycat.rules.ticking) on a clock the test holds: a
sleep moves it, and a read can take as long as the test says. The race, its board and its claims are
in memory here; tests/integration/test_ticker.py runs the same loop on DynamoDB Local."""

from __future__ import annotations

import itertools
import math
from decimal import Decimal

import pytest

from alleycat import clock
from alleycat.edge import push
from alleycat.flows import ticking
from alleycat.rules import board, finishing
from alleycat.rules import ticking as rules
from alleycat.storage import entities as e

RACE = "01JD5Z6Q8X0000000000000000"
START = 1_800_000_000.0  # a whole minute
STARTS_AT = clock.iso(START)
PHASE, LATE = rules.PHASE, rules.LATE


def test_second_k_goes_at_the_phase_after_it_began_and_none_before_the_start():
    assert rules.tick_at(START, 0) == START + PHASE > START
    assert rules.tick_at(START, 7) == START + 7 + PHASE
    assert rules.due(START, START + PHASE - 0.001) == -1
    assert rules.due(START, START + 7 + PHASE) == 7
    # Before the start, the first second is next; right after its tick, the one after it
    assert rules.next_second(START, START - 100, -1) == 0
    assert rules.next_second(START, START + PHASE + 0.01, 0) == 1


def test_a_late_wake_sends_the_latest_tick_while_it_is_within_late_else_the_next():
    # Woken 3 s late after second 2: seconds 3 and 4 are skipped, 5 goes if within LATE of its time
    assert rules.next_second(START, rules.tick_at(START, 5) + LATE - 0.01, 2) == 5
    assert rules.next_second(START, rules.tick_at(START, 5) + LATE + 0.01, 2) == 6
    # Never a second already sent, however early
    assert rules.next_second(START, rules.tick_at(START, 5) - 0.5, 5) == 6
    # Exactly LATE after its time a tick still goes
    assert rules.next_second(START, rules.tick_at(START, 5) + LATE, 2) == 5


def test_a_ticker_gives_up_waiting_for_the_settlement_at_settle_wait_after_the_end():
    assert not rules.waited_too_long(60, 60 + rules.SETTLE_WAIT - 1)
    assert rules.waited_too_long(60, 60 + rules.SETTLE_WAIT)


def test_an_invocation_ticks_for_its_run_and_asks_for_the_next_a_few_ticks_before_its_last():
    last = rules.last_tick(START, START - 30)
    assert rules.tick_at(START, last) <= START - 30 + rules.RUN_SECONDS < rules.tick_at(START, last + 1)
    assert rules.hand_over_at(last) == last - rules.HANDOVER_TICKS
    assert rules.RUN_SECONDS + 30 < 900  # inside Lambda's limit, with its timeout (stacks/board_events.py)


def test_a_far_start_is_scheduled_in_the_minute_that_lands_before_it():
    minute = rules.minute_to_schedule(START, START - 3600)
    assert minute is not None and minute % 60 == 0
    # EventBridge Scheduler fires anywhere in the minute: the latest firing is MARGIN before the start
    assert minute + finishing.PRECISION <= START - rules.MARGIN
    assert minute + finishing.PRECISION > START - rules.MARGIN - 60
    # Near the start (the minute under LEAD ahead): no schedule, the ticker waits itself
    assert rules.minute_to_schedule(START, START - 100) is None
    # A minute exactly LEAD ahead is still scheduled
    exactly = rules.minute_to_schedule(START, START - 3600)
    assert exactly is not None and rules.minute_to_schedule(START, exactly - finishing.LEAD) == exactly
    assert rules.minute_to_schedule(START, exactly - finishing.LEAD + 1) is None
    assert rules.minute_to_schedule(None, START) is None


# --- the loop ----------------------------------------------------------------------------------------


class Clock:
    def __init__(self, now: float):
        self.t = now

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.t += seconds


class Recorder:
    def __init__(self, at, after):
        self.at, self.after, self.sent = at, after, []

    def publish(self, channel, events):
        assert channel == push.channel(RACE)
        self.sent += [(self.at(), push.decoded(event)) for event in events]
        self.after()

    def boards(self):
        return [(t, m) for t, m in self.sent if m["status"] != "finished"]


class World:
    """The race, its board and its claims as the ticker's reads find them, on the test's clock; ``script``
    runs at each board read with the second being ticked (the test's racers and finish); ``stalls`` holds
    how long a publish takes, by second."""

    def __init__(self, monkeypatch, duration: int = 10, racers: int = 3, now: float = START - 20):
        self.clock = Clock(now)
        monkeypatch.setattr(clock, "now", self.clock.now)
        monkeypatch.setattr(clock, "sleep", self.clock.sleep)
        self.race = e.Race(RACE, "hill", "Hill", STARTS_AT, duration)
        self.standings = {f"racer-{n}": board.Standing(f"racer-{n}", Decimal(0), -1, f"Racer {n}") for n in range(racers)}
        self.claims: dict[str, tuple[int, str]] = {}
        self.stalls: dict[int, float] = {}
        self.script = lambda second: None
        self.started: list[dict] = []
        self.scheduled: list[float] = []
        self.publisher = Recorder(self.clock.now, lambda: self.clock.sleep(self.stalls.get(rules.due(START, self.clock.now()), 0)))
        monkeypatch.setattr(ticking.races, "get", lambda race_id, consistent=False: self.race)
        monkeypatch.setattr(ticking.races, "with_boards", self.with_boards)
        monkeypatch.setattr(ticking.tickers, "claim", self.claim)
        monkeypatch.setattr(ticking, "start", lambda race_id, arn=None, first=None: self.started.append(
            {"at": self.clock.now(), "from": first}))
        monkeypatch.setattr(ticking, "_schedule", lambda race, minute, arn: self.scheduled.append(minute))

    def with_boards(self, race_id, consistent=False):
        self.script(rules.due(START, self.clock.now()))
        shards: dict[int, e.RaceBoard] = {}
        for standing in self.standings.values():
            shard = e.RaceBoard.shard_of(standing.racer_id)
            shards.setdefault(shard, e.RaceBoard(RACE, shard)).standings[standing.racer_id] = standing.item()
        return self.race, list(shards.values())

    def claim(self, race_id, second, owner):
        last, by = self.claims.get(race_id, (-1, None))
        if second < last or (second == last and by != owner):
            return False
        self.claims[race_id] = (second, owner)
        return True

    def ride(self, second: int) -> None:
        """Every racer's seconds up to ``second`` on the board (the ticker's phase: the second's writes are done)."""
        for n, (racer_id, standing) in enumerate(self.standings.items()):
            if second > standing.last_second:
                self.standings[racer_id] = board.Standing(racer_id, Decimal((second + 1) * (n + 1)), second, standing.name)

    def tick(self, first=None, owner="me") -> str:
        return ticking.tick(RACE, self.publisher, "arn:ticker", owner, first)


def test_one_board_message_a_race_second_at_its_phase_and_none_before_the_start(monkeypatch):
    world = World(monkeypatch, duration=10)
    world.script = lambda second: (world.ride(min(second, 9)), second == 12 and setattr(world.race, "status", e.FINISHED),
                                   second == 13 and setattr(world.race, "settled", True))
    assert world.tick() == "finished"
    sent = world.publisher.boards()
    # One a race second, each at its second's phase: seconds 0..9, none before the start
    assert [t for t, _ in sent] == [rules.tick_at(START, k) for k in range(10)]
    assert all(t > START for t, _ in sent)
    # Each message shows its second
    assert [max(row[3] for row in message["rows"]) for _, message in sent] == list(range(10))


def test_a_message_carries_the_top_rows_and_the_racers_whose_rows_changed_since_the_last(monkeypatch):
    world = World(monkeypatch, duration=3, racers=12)

    def script(second):
        if second == 0:  # every racer's first second, racer-11 last
            world.standings = {f"racer-{n}": board.Standing(f"racer-{n}", Decimal(100 - n), 0, f"Racer {n}") for n in range(12)}
        if second == 1:  # racer-11 alone moves, and stays last
            world.standings["racer-11"] = board.Standing("racer-11", Decimal("89.5"), 1, "Racer 11")
        if second == 3:
            world.race.status, world.race.settled = e.FINISHED, True

    world.script = script
    world.tick()
    keys = {push.key(racer): racer for racer in world.standings}
    racer = lambda who: who[0] if isinstance(who, list) else keys.get(who, who)
    messages = [message["rows"] for _, message in world.publisher.boards()]
    rows = [{racer(row[1]) for row in message} for message in messages]
    top = {racer(row[1]) for row in messages[-1][:push.TOP_ROWS]}
    assert rows[0] == set(world.standings)  # the first message of an invocation: every row
    assert rows[1] == top | {"racer-11"} and "racer-11" not in top
    assert rows[2] == top  # nothing moved: the top rows alone
    # And the top rows' names go once, in the invocation's first message; later ones name them by key
    assert [isinstance(row[1], list) for row in messages[0]] == [True] * push.TOP_ROWS + [False] * 2
    assert not any(isinstance(row[1], list) for message in messages[1:] for row in message)


def test_rows_a_full_message_left_out_go_in_the_next_though_they_did_not_change(monkeypatch):
    # Given 600 racers who all ride second 0, then none moves (a stalled stream)
    world = World(monkeypatch, duration=4, racers=600)
    world.script = lambda second: world.ride(0) if second == 0 else None
    world.tick()
    (_, first), (_, second), *_ = world.publisher.boards()
    # Then the first message is full, and the next goes on from the rank where it stopped
    assert first["more"] == 600 - len(first["rows"]) > 0
    assert [row[0] for row in second["rows"]] == list(range(1, push.TOP_ROWS + 1)) + list(
        range(len(first["rows"]) + 1, len(first["rows"]) + len(second["rows"]) - push.TOP_ROWS + 1))
    assert second["more"] == first["more"] - (len(second["rows"]) - push.TOP_ROWS)


def test_after_a_stall_missed_ticks_are_skipped_never_bunched(monkeypatch):
    world = World(monkeypatch, duration=20)

    def script(second):
        world.ride(min(second, 19))
        if second == 21:
            world.race.status, world.race.settled = e.FINISHED, True

    world.script = script
    # Second 3's publish stalls the ticker 2.7 s, second 9's 1.6 s (the next tick is then just past LATE)
    world.stalls = {3: 2.7, 9: 1.6}
    world.tick()
    times = [t for t, _ in world.publisher.boards()]
    seconds = [math.floor(t - START - PHASE) for t in times]
    # 4 and 5 are skipped, as is 10 (woken just past LATE), and every message that went is within LATE of its tick
    assert seconds == [0, 1, 2, 3, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19]
    assert all(0 <= t - rules.tick_at(START, k) <= LATE for t, k in zip(times, seconds, strict=True))
    # so no two messages are nearer than a second less LATE
    assert min(b - a for a, b in itertools.pairwise(times)) >= 1 - LATE


def test_the_last_message_goes_once_the_finished_race_is_settled(monkeypatch):
    world = World(monkeypatch, duration=5)
    world.script = lambda second: (world.ride(min(second, 4)),
                                   second == 15 and setattr(world.race, "status", e.FINISHED),
                                   second == 17 and setattr(world.race, "settled", True))
    assert world.tick() == "finished"
    *boards, (last_at, last) = world.publisher.sent
    # The board a second while it raced; after its end nothing while nothing changed; then, settled, the last
    assert [m["status"] for _, m in boards] == ["open"] * 5 and boards[-1][0] == rules.tick_at(START, 4)
    assert last["status"] == "finished" and last_at == rules.tick_at(START, 17)
    # A ticker that comes later (a hand-over, a duplicate) sends no second last message
    assert world.tick(first=18, owner="another") == "duplicate" and len(world.publisher.sent) == 6


def test_a_second_sent_late_after_the_end_is_pushed(monkeypatch):
    world = World(monkeypatch, duration=5)
    world.script = lambda second: (world.ride(min(second, 4) if second < 8 else 5),
                                   second == 11 and setattr(world.race, "status", e.FINISHED),
                                   second == 12 and setattr(world.race, "settled", True))
    world.tick()
    assert [t for t, _ in world.publisher.boards()] == [rules.tick_at(START, k) for k in (0, 1, 2, 3, 4, 8)]


def test_a_ticker_that_loses_a_seconds_claim_stops(monkeypatch):
    world = World(monkeypatch)
    world.claims[RACE] = (0, "the other")
    assert world.tick() == "duplicate" and world.publisher.sent == []


def test_a_race_that_starts_far_ahead_is_scheduled_and_ticks_nothing_now(monkeypatch):
    world = World(monkeypatch, now=START - 3600)
    assert world.tick() == "scheduled"
    assert world.scheduled == [rules.minute_to_schedule(START, START - 3600)] and world.publisher.sent == []


def test_a_long_race_is_handed_over_before_the_invocations_limit(monkeypatch):
    world = World(monkeypatch, duration=3600)
    world.script = world.ride
    monkeypatch.setattr(rules, "RUN_SECONDS", 60)
    assert world.tick() == "handed over"
    last = rules.last_tick(START, START - 20)
    # The next invocation asked for at the tick HANDOVER_TICKS before this one's last, from the second after it
    assert world.started == [{"at": rules.tick_at(START, last - rules.HANDOVER_TICKS), "from": last + 1}]
    assert world.publisher.sent[-1][0] == rules.tick_at(START, last)
    # It takes over there: its first message is that second's, with every row
    before = len(world.publisher.sent)
    assert world.tick(first=last + 1, owner="next") == "handed over"
    at, first = world.publisher.sent[before]
    assert at == rules.tick_at(START, last + 1) and len(first["rows"]) == len(world.standings)


@pytest.mark.parametrize("race", [None, e.Race(RACE, "hill", "Hill", "1-01-01T00:00:00Z", 60)])
def test_no_race_or_no_start_a_clock_can_name_ticks_nothing(monkeypatch, race):
    world = World(monkeypatch)
    world.race = race
    assert world.tick() == "left" and world.publisher.sent == []


def test_a_publish_that_fails_is_logged_and_the_next_second_goes(monkeypatch):
    world = World(monkeypatch, duration=4)
    world.script = lambda second: (world.ride(min(second, 3)), second == 5 and setattr(world.race, "status", e.FINISHED),
                                   second == 5 and setattr(world.race, "settled", True))
    failed = []
    monkeypatch.setattr(ticking.pushing, "_failed", lambda message, race_id, error: failed.append(message))
    publish = world.publisher.publish

    def flaky(channel, events):
        if rules.due(START, world.clock.now()) == 1:
            raise OSError("the Event API did not answer")
        publish(channel, events)

    monkeypatch.setattr(world.publisher, "publish", flaky)
    assert world.tick() == "finished"
    assert failed == ["board push failed"]
    assert [t for t, _ in world.publisher.boards()] == [rules.tick_at(START, k) for k in (0, 2, 3)]


def test_a_race_long_past_its_end_and_never_settled_is_given_up_without_a_message(monkeypatch):
    world = World(monkeypatch, duration=60, now=START + 60 + rules.SETTLE_WAIT + 3600)
    assert world.tick() == "gave up" and world.publisher.sent == []
