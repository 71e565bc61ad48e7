"""Pushing boards to viewers: a race's board after a batch wrote it, paced by the race's push gate
(``push_gate``: the board publisher sends it, at most a message a second); and a message when a
race is settled.

The publisher is a port: anything with ``publish(channel, events)`` (``push.Publisher`` sends to
AppSync Events; a test's records what would be sent); so is ``later(race_id, at)``, which asks the
board publisher for the race's next message (``push_gate.invoke_publisher``: asynchronously).
Without ``later`` the batch sends each race's board itself (a processor tested alone). A failure is logged and
counted, never a failed record: the board in the table is the truth, and viewers read it again on a
reconnect.
"""

from __future__ import annotations

from typing import Callable, Protocol

from alleycat.storage import entities as e
from alleycat.storage import parallel, races
from alleycat.edge import push
from alleycat.rules import push_gate
from alleycat.observability import count, logger


class Publisher(Protocol):
    def publish(self, channel: str, events: list[dict]) -> object: ...


Later = Callable[[str, int], None]


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
            step = push_gate.after_write(race_id, {board.shard for board in written})
            if step is not None:
                later(race_id, step.at)
            return
        shards, status = written, e.OPEN
        if len(written) < e.BOARD_SHARDS:
            race, shards = races.with_boards(race_id, consistent=True)
            if race is None:
                return
            status = race.status
        publisher.publish(push.channel(race_id), [push.board_message(race_id, shards, changed[race_id], status)])

    for race_id, outcome in parallel.outcomes(push_board, boards).items():
        if parallel.failed(outcome):
            _failed("board push failed", race_id, outcome)


def push_later(publisher: Publisher | None, race_id: str, at: int) -> bool:
    """The board publisher's message, at ``at`` (epoch milliseconds): the board as it is then, with the
    racers of the shards noted since the last message as its rows that moved. False when there was
    nothing to send (another message took the notes, the race is finished, or publishing is off)."""
    push_gate.sleep_until(at)
    pending = push_gate.take(race_id) if publisher is not None else None
    if pending is None:
        return False
    try:
        race, shards = races.with_boards(race_id, consistent=True)
        if race is None or race.status != e.OPEN:  # finished: its settlement's message tells viewers, once final
            return False
        message = push.board_message(race_id, shards, push_gate.racers_on(shards, pending), race.status)
        publisher.publish(push.channel(race_id), [message])
    except Exception as error:  # noqa: BLE001 - viewers read the board over HTTP on a reconnect anyway
        _failed("delayed board push failed", race_id, error)
        return False
    return True


def push_settled(publisher: Publisher | None, race_id: str) -> None:
    if publisher is None:
        return
    try:
        publisher.publish(push.channel(race_id), [push.finished_message(race_id)])
    except Exception as error:  # noqa: BLE001 - viewers read the final board over HTTP anyway
        _failed("finish push failed", race_id, error)


def _failed(message: str, race_id: str, error: Exception) -> None:
    logger.warning(message, extra={"raceId": race_id, "error": repr(error)})
    count("BoardPushFailed", 1)
