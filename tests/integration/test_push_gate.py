"""The race's push gate (alleycat.push_gate) on DynamoDB Local, on times the test gives: at most one
message per interval, however writers and delayed publishes interleave, and every written shard in a
message sent or in the next one."""

from __future__ import annotations

import random

import pytest

from alleycat import push_gate, races
from alleycat.push_gate import Later, Send

RACE = "01JD5Z6Q8X0000000000000000"
T = 1_800_000_000_000  # epoch milliseconds
INTERVAL = 1000
STALE = INTERVAL + push_gate.STALE_MS


@pytest.fixture(autouse=True)
def one_a_second(table, monkeypatch):
    monkeypatch.setenv(push_gate.MESSAGES_VARIABLE, "1")


def test_a_change_after_a_quiet_spell_is_sent_at_once_and_the_next_ones_a_second_later():
    # The first write of a race sends its board now
    assert push_gate.after_write(RACE, {3}, now=T) == Send(frozenset())
    # A write 200 ms later asks for a delayed publish when the next message is due; one after it, nothing
    assert push_gate.after_write(RACE, {5}, now=T + 200) == Later(T + INTERVAL)
    assert push_gate.after_write(RACE, {6, 5}, now=T + 400) is None
    # The delayed publish takes both writers' shards; asked again (Lambda delivered it twice), nothing
    assert push_gate.take(RACE, now=T + INTERVAL) == {5, 6}
    assert push_gate.take(RACE, now=T + INTERVAL + 5) is None
    # A write before the next is due waits for it; one after, with nothing coming, is sent at once
    assert push_gate.after_write(RACE, {1}, now=T + 1500) == Later(T + 2 * INTERVAL)
    assert push_gate.take(RACE, now=T + 2 * INTERVAL) == {1}
    assert push_gate.after_write(RACE, {2}, now=T + 3500) == Send(frozenset())


def test_a_delayed_publish_that_never_came_is_replaced_by_the_first_writer_once_it_is_stale():
    assert push_gate.after_write(RACE, {1}, now=T) == Send(frozenset())
    assert push_gate.after_write(RACE, {2}, now=T + 100) == Later(T + INTERVAL)
    assert push_gate.after_write(RACE, {3}, now=T + 100 + STALE) is None  # still coming, maybe
    # Lambda gave it up: the first write once it is stale sends, with the shards noted for it
    assert push_gate.after_write(RACE, {4}, now=T + 100 + STALE + 1) == Send(frozenset({2, 3}))
    assert push_gate.take(RACE, now=T + 100 + STALE + 2) is None  # and if it comes after all: nothing to send


def test_the_gate_is_not_in_the_race_partition_pattern_4_reads():
    from alleycat import entities as e

    race = e.Race(RACE, "hill-climb", "Hill climb", "2026-11-22T10:00:00Z", 300)
    races.create(race)
    push_gate.after_write(RACE, {0}, now=T)
    push_gate.after_write(RACE, {1}, now=T + 10)
    found, boards = races.with_boards(RACE, consistent=True)
    assert found == race and sorted(board.shard for board in boards) == list(range(e.BOARD_SHARDS))


def test_the_rate_is_a_setting(monkeypatch):
    monkeypatch.setenv(push_gate.MESSAGES_VARIABLE, "4")
    assert push_gate.after_write(RACE, {1}, now=T) == Send(frozenset())
    assert push_gate.after_write(RACE, {2}, now=T + 100) == Later(T + 250)
    assert push_gate.take(RACE, now=T + 250) == {2}
    assert push_gate.after_write(RACE, {3}, now=T + 600) == Send(frozenset())


@pytest.mark.parametrize("seed", range(3))
def test_any_interleaving_sends_at_most_one_message_an_interval_and_loses_no_shard(seed):
    """Writers (S shards' invocations, each a moment apart) and the delayed publishes they ask for, in
    time order with random gaps; a delayed publish runs at its time plus a random delay (an async
    invocation's queue, or one so late it was replaced). Every shard written is in a message at or after its write."""
    rng = random.Random(seed)
    now, due, sent, written = T, [], [], []  # due: the delayed publishes asked for, by time
    for _ in range(120):
        now += rng.choice((0, 30, 120, 250, 400, 900))
        for at in sorted(a for a in due if a <= now):
            due.remove(at)
            pending = push_gate.take(RACE, now=at)
            if pending is not None:
                sent.append((at, set(pending)))
        shards = set(rng.sample(range(20), rng.randint(1, 3)))
        written.append((now, shards))
        step = push_gate.after_write(RACE, shards, now=now)
        if isinstance(step, Send):
            sent.append((now, set(step.pending) | shards))
        elif isinstance(step, Later):
            assert step.at <= now + INTERVAL
            due.append(step.at + rng.choice((0, 0, 20, 300, 7000)))
    for at in sorted(due):
        pending = push_gate.take(RACE, now=max(at, now))
        if pending is not None:
            sent.append((max(at, now), set(pending)))
    times = [at for at, _ in sent]
    assert times == sorted(times) and all(b - a >= INTERVAL for a, b in zip(times, times[1:]))
    for when, shards in written:
        covered = set().union(*(s for at, s in sent if at >= when))
        assert shards <= covered, (when, shards)
