"""Pushing boards to viewers: a race's board after a batch wrote it, paced by the race's push gate
(``rules.push_gate``'s timing, the gate's item in ``storage.push_gates``: the board publisher sends it,
at most a message a second); and a message when a race is settled.

The publisher is a port: anything with ``publish(channel, events)`` (``aws.events.Publisher`` sends to
AppSync Events; a test's records what would be sent); each event is a message ``push.encoded``. So is
``later(race_id, at)``, which asks the board publisher for the race's next message (``invoke_publisher``:
asynchronously). Without ``later`` the batch sends each race's board itself (a processor tested alone).
A failure is logged and counted, never a failed record: the board in the table is the truth, and viewers
read it again on a reconnect.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol

from alleycat import settings
from alleycat.edge import push
from alleycat.observability import count, logger
from alleycat.rules import push_gate
from alleycat.storage import entities as e
from alleycat.storage import parallel, push_gates, races


class Publisher(Protocol):
    def publish(self, channel: str, events: list[dict]) -> object: ...


Later = Callable[[str, int], None]


def now_ms() -> int:
    """The wall clock's time (the gate's: AppSync bills messages as they go), never the race's clock."""
    return round(time.time() * 1000)


def sleep_until(at: int) -> None:
    wait = at / 1000 - time.time()
    if wait > 0:
        time.sleep(wait)


def invoke_publisher() -> Later | None:
    """How the stream processor asks for a race's next message: the board publisher invoked
    asynchronously with ``{"raceId", "at"}``; None where the stack sets no board publisher."""
    function = settings.load().board_publisher_arn
    if not function:
        return None
    from alleycat.aws import lambdas

    return lambda race_id, at: lambdas.invoke_later(function, {"raceId": race_id, "at": at})


def after_write(race_id: str, shards: Iterable[int], now: int | None = None) -> push_gate.Later | None:
    """What an invocation that wrote these board shards of the race does about its viewers: ask for
    the next message (``Later``), or nothing when it is asked for already."""
    now = now_ms() if now is None else now
    gate = push_gates.note(race_id, set(shards), now)
    step = push_gate.after_note(gate.armed, gate.next, now, push_gate.interval_ms(settings.load().push_messages_per_second))
    if step is not None and step.replaces is not None:
        return push_gate.Later(step.at) if push_gates.rearm(race_id, step.replaces, now) else None
    return step


def take(race_id: str, now: int | None = None) -> frozenset[int] | None:
    """The board publisher's turn: the shards noted since the last message, or None when a message
    already took them (or one sent since is too recent)."""
    now = now_ms() if now is None else now
    gate = push_gates.take(race_id, now, push_gate.next_after(now, push_gate.interval_ms(settings.load().push_messages_per_second)))
    return None if gate is None else frozenset(gate.pending)


def push_boards(publisher: Publisher | None, boards: dict[str, list[e.RaceBoard]], changed: dict[str, set[str]],
                later: Later | None = None) -> None:
    """Each race's live board to its viewers. With ``later`` (the stack's board publisher): the shards
    this batch wrote are noted on the race's push gate, and the race's next message asked for if this
    batch is the first since the last. Without: published now, from the shards as this batch wrote
    them (a race with a shard it did not write, a small race or a quiet second, read once, with its status)."""
    if publisher is None or not boards:
        return

    def push_board(race_id: str, written: list[e.RaceBoard]) -> None:
        if later:
            step = after_write(race_id, {board.shard for board in written})
            if step is not None:
                later(race_id, step.at)
            return
        shards, status = written, e.OPEN
        if len(written) < e.BOARD_SHARDS:
            race, shards = races.with_boards(race_id, consistent=True)
            if race is None:
                return
            status = race.status
        _publish(publisher, race_id, push.board_message(race_id, shards, changed[race_id], status))

    for race_id, outcome in parallel.outcomes(push_board, boards).items():
        if parallel.failed(outcome):
            _failed("board push failed", race_id, outcome)


def push_later(publisher: Publisher | None, race_id: str, at: int) -> bool:
    """The board publisher's message, at ``at`` (epoch milliseconds): the board as it is then, with the
    racers of the shards noted since the last message as its rows that moved. False when there was
    nothing to send (another message took the notes, the race is finished, or publishing is off)."""
    sleep_until(at)
    if publisher is None:
        return False
    pending = take(race_id)
    if pending is None:
        return False
    try:
        race, shards = races.with_boards(race_id, consistent=True)
        if race is None or race.status != e.OPEN:  # finished: its settlement's message tells viewers, once final
            return False
        _publish(publisher, race_id, push.board_message(race_id, shards, push_gate.racers_on(shards, pending), race.status))
    except Exception as error:  # noqa: BLE001 - viewers read the board over HTTP on a reconnect anyway
        _failed("delayed board push failed", race_id, error)
        return False
    return True


def push_settled(publisher: Publisher | None, race_id: str) -> None:
    if publisher is None:
        return
    try:
        _publish(publisher, race_id, push.finished_message(race_id))
    except Exception as error:  # noqa: BLE001 - viewers read the final board over HTTP anyway
        _failed("finish push failed", race_id, error)


def _publish(publisher: Publisher, race_id: str, message: dict) -> None:
    publisher.publish(push.channel(race_id), [push.encoded(message)])


def _failed(message: str, race_id: str, error: Exception) -> None:
    logger.warning(message, extra={"raceId": race_id, "error": repr(error)})
    count("BoardPushFailed", 1)
