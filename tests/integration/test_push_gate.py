"""The race's push gate (alleycat.flows.pushing, timed by alleycat.rules.push_gate) on DynamoDB Local, on times the test gives: at most one
message per interval, however writers and delayed publishes interleave, and every written shard in a
message sent or in the next one."""

from __future__ import annotations

import itertools
import random

import pytest

from alleycat import settings
from alleycat.flows import pushing
from alleycat.rules import push_gate
from alleycat.rules.push_gate import Later
from alleycat.settings import PUSH_MESSAGES_PER_SECOND
from alleycat.storage import races

RACE = "01JD5Z6Q8X0000000000000000"
T = 1_800_000_000_000  # epoch milliseconds
INTERVAL = 1000
LINGER = push_gate.LINGER_MS
STALE = push_gate.STALE_MS


@pytest.fixture(autouse=True)
def one_a_second(table, monkeypatch):
    monkeypatch.setenv(PUSH_MESSAGES_PER_SECOND, "1")
    settings.reset()


def test_the_first_change_asks_for_a_message_a_moment_later_and_the_next_ones_ride_with_it():
    # The race's first write asks for a message LINGER_MS later; the other shards' writes of that second
    # ask for nothing: it will carry them
    assert pushing.after_write(RACE, {3}, now=T) == Later(T + LINGER)
    assert pushing.after_write(RACE, {5}, now=T + 50) is None
    assert pushing.after_write(RACE, {6, 5}, now=T + 120) is None
    # The publisher takes every shard noted; asked again (Lambda delivered it twice), nothing
    assert pushing.take(RACE, now=T + LINGER) == {3, 5, 6}
    assert pushing.take(RACE, now=T + LINGER + 5) is None
    # A write before the next message is due asks for it when it is due; one long after, a moment later
    assert pushing.after_write(RACE, {1}, now=T + 700) == Later(T + LINGER + INTERVAL)
    assert pushing.take(RACE, now=T + LINGER + INTERVAL) == {1}
    assert pushing.after_write(RACE, {2}, now=T + 5000) == Later(T + 5000 + LINGER)


def test_a_message_that_never_came_is_asked_for_again_once_it_is_stale():
    assert pushing.after_write(RACE, {2}, now=T) == Later(T + LINGER)
    assert pushing.after_write(RACE, {3}, now=T + LINGER + INTERVAL + STALE) is None  # still coming, maybe
    # Lambda gave it up: the first write once it is stale asks again, once, for every shard noted
    late = T + LINGER + INTERVAL + STALE + 1
    assert pushing.after_write(RACE, {4}, now=late) == Later(late + LINGER)
    assert pushing.after_write(RACE, {5}, now=late + 1) is None
    assert pushing.take(RACE, now=late + LINGER) == {2, 3, 4, 5}
    assert pushing.take(RACE, now=late + LINGER + 10) is None  # and if the first came after all: nothing


def test_the_gate_is_not_in_the_race_partition_pattern_4_reads():
    from alleycat.storage import entities as e

    race = e.Race(RACE, "hill-climb", "Hill climb", "2026-11-22T10:00:00Z", 300)
    races.create(race)
    pushing.after_write(RACE, {0}, now=T)
    pushing.after_write(RACE, {1}, now=T + 10)
    found, boards = races.with_boards(RACE, consistent=True)
    assert found == race and sorted(board.shard for board in boards) == list(range(e.BOARD_SHARDS))


def test_the_rate_is_a_setting(monkeypatch):
    monkeypatch.setenv(PUSH_MESSAGES_PER_SECOND, "4")
    settings.reset()
    assert pushing.after_write(RACE, {1}, now=T) == Later(T + LINGER)
    assert pushing.take(RACE, now=T + LINGER) == {1}
    assert pushing.after_write(RACE, {2}, now=T + LINGER + 10) == Later(T + LINGER + 250)


@pytest.mark.parametrize("seed", range(3))
def test_any_interleaving_sends_at_most_one_message_an_interval_and_loses_no_shard(seed):
    """Writers (S shards' invocations, each a moment apart) and the messages they ask for, in
    time order with random gaps; a delayed publish runs at its time plus a random delay (an async
    invocation's queue, or one so late it was replaced). Every shard written is in a message at or after its write."""
    rng = random.Random(seed)
    now, due, sent, written = T, [], [], []  # due: the delayed publishes asked for, by time
    for _ in range(120):
        now += rng.choice((0, 30, 120, 250, 400, 900))
        for at in sorted(a for a in due if a <= now):
            due.remove(at)
            pending = pushing.take(RACE, now=at)
            if pending is not None:
                sent.append((at, set(pending)))
        shards = set(rng.sample(range(20), rng.randint(1, 3)))
        written.append((now, shards))
        step = pushing.after_write(RACE, shards, now=now)
        if step is not None:
            assert now + LINGER <= step.at <= now + max(LINGER, INTERVAL)
            due.append(step.at + rng.choice((0, 0, 20, 300, 7000)))
    for at in sorted(due):
        pending = pushing.take(RACE, now=max(at, now))
        if pending is not None:
            sent.append((max(at, now), set(pending)))
    times = [at for at, _ in sent]
    assert times == sorted(times) and all(b - a >= INTERVAL for a, b in itertools.pairwise(times))
    for when, shards in written:
        covered = set().union(*(s for at, s in sent if at >= when))
        assert shards <= covered, (when, shards)
