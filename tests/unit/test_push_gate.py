"""When a race's board is pushed (``alleycat.rules.push_gate``): the gate's timing as values, no table.

Expected values from docs/push.md: at most N messages a race a second (``PUSH_MESSAGES_PER_SECOND``,
1 by default), so an interval of 1000/N ms; the first writer since the last message asks for the
next at the later of when it is due and 200 ms from now (the other shards' writes of that second
ride along); a message asked for that never came is asked for again by the first writer 5 s after
it was due. Times in epoch milliseconds.
"""

from dataclasses import dataclass, field

import pytest

from alleycat import settings
from alleycat.rules import push_gate
from alleycat.rules.push_gate import Later

T = 1_800_000_000_000
SECOND = 1000


@pytest.mark.parametrize("setting, rate", [(None, 1.0), ("", 1.0), ("4", 4.0), ("0.5", 0.5)])
def test_the_rate_is_the_setting_or_one_a_second(monkeypatch, setting, rate):
    if setting is None:
        monkeypatch.delenv("PUSH_MESSAGES_PER_SECOND", raising=False)
    else:
        monkeypatch.setenv("PUSH_MESSAGES_PER_SECOND", setting)
    settings.reset()
    assert settings.load().push_messages_per_second == rate


def test_the_interval_is_a_second_shared_by_the_messages_of_a_second():
    assert push_gate.interval_ms(1) == 1000
    assert push_gate.interval_ms(4) == 250
    assert push_gate.interval_ms(3) == 333  # to the nearest millisecond
    assert push_gate.interval_ms(1.5) == 667
    assert push_gate.interval_ms(0.5) == 2000


def test_the_first_writer_asks_for_a_message_200_ms_later_when_none_is_due_sooner():
    # A new gate (nothing asked, no message yet)
    assert push_gate.after_note(None, 0, T, SECOND) == Later(T + 200)
    # The last message's interval ends within those 200 ms: still 200 ms
    assert push_gate.after_note(None, T + 150, T, SECOND) == Later(T + 200)
    assert push_gate.after_note(None, T + 200, T, SECOND) == Later(T + 200)


def test_the_first_writer_asks_for_the_message_when_it_is_due_when_that_is_later():
    # The last message went 300 ms ago: the next is due in 700 ms
    assert push_gate.after_note(None, T + 700, T, SECOND) == Later(T + 700)
    assert push_gate.after_note(None, T + 201, T, SECOND) == Later(T + 201)


def test_a_writer_after_the_first_asks_for_nothing_the_message_asked_for_carries_its_shards():
    assert push_gate.after_note(T, T + 200, T + 50, SECOND) is None
    assert push_gate.after_note(T, T + 1000, T + 900, SECOND) is None


def test_a_message_that_never_came_is_asked_for_again_5_s_after_it_was_due():
    # Asked for at T, due at the latest T + 1000 (the interval) + 200 (the linger): stale after T + 6200
    assert push_gate.after_note(T, T + 1000, T + 6200, SECOND) is None
    assert push_gate.after_note(T, T + 1000, T + 6201, SECOND) == Later(T + 6401, replaces=T)
    # at a rate of 4 a second: due by T + 450, stale after T + 5450
    assert push_gate.after_note(T, T + 250, T + 5450, 250) is None
    assert push_gate.after_note(T, T + 250, T + 5451, 250) == Later(T + 5651, replaces=T)
    # asked again for when it is due, if that is later than 200 ms from now
    assert push_gate.after_note(T, T + 9000, T + 8000, SECOND) == Later(T + 9000, replaces=T)


def test_after_a_message_the_next_is_due_an_interval_later():
    assert push_gate.next_after(T, SECOND) == T + 1000
    assert push_gate.next_after(T, 250) == T + 250


def test_the_racers_of_the_noted_shards_are_the_rows_that_moved():
    @dataclass
    class Board:
        shard: int
        standings: dict = field(default_factory=dict)

    boards = [Board(0, {"a": [1], "b": [2]}), Board(3, {"c": [3]}), Board(7, {})]
    assert push_gate.racers_on(boards, {0, 7}) == {"a", "b"}
    assert push_gate.racers_on(boards, [3]) == {"c"}
    assert push_gate.racers_on(boards, set()) == set()


class Gate:
    """The gate's item as storage.push_gates writes it (docs/push.md), in memory: a note adds the shards
    and sets ``armed`` if absent, returning the gate as it was; a take succeeds only if armed and due."""

    def __init__(self):
        self.pending, self.next, self.armed = set(), 0, None

    def note(self, shards, now):
        before = (self.armed, self.next)
        self.pending |= shards
        self.armed = now if self.armed is None else self.armed
        return before

    def rearm(self, armed, now):
        if self.armed != armed:
            return False
        self.armed = now
        return True

    def take(self, now, interval):
        if self.armed is None or self.next > now:
            return None
        taken, self.pending, self.armed, self.next = self.pending, set(), None, push_gate.next_after(now, interval)
        return taken


def paced(gap_ms: int) -> tuple[list[tuple[int, set]], list[tuple[int, int]]]:
    """Four shards' invocations writing every second, ``gap_ms`` apart, for ten seconds; every message asked
    for sent at its time: (the messages sent, with their shards; the writes, (time, shard))."""
    gate, asked, sent, written = Gate(), list[int](), list[tuple[int, set]](), list[tuple[int, int]]()

    def send_due(now):
        for at in sorted(at for at in asked if at <= now):
            asked.remove(at)
            taken = gate.take(at, SECOND)
            if taken is not None:
                sent.append((at, taken))

    for second in range(10):
        for shard in range(4):
            now = T + second * SECOND + shard * gap_ms
            send_due(now)
            written.append((now, shard))
            armed, next_at = gate.note({shard}, now)
            step = push_gate.after_note(armed, next_at, now, SECOND)
            if step is not None:
                asked.append(step.at)
    send_due(T + 20 * SECOND)
    return sent, written


def test_shards_written_within_200_ms_of_each_other_ride_in_one_message_a_second():
    sent, _ = paced(60)
    assert sent == [(T + 200 + n * SECOND, {0, 1, 2, 3}) for n in range(10)]


def test_shards_written_further_apart_are_still_paced_to_a_message_a_second_and_none_is_left_out():
    sent, written = paced(100)  # the fourth shard writes 300 ms after the first
    times = [at for at, _ in sent]
    assert times == [T + 200 + n * SECOND for n in range(11)]  # the last write's in an eleventh
    for when, shard in written:
        assert any(shard in shards for at, shards in sent if at >= when), (when, shard)
