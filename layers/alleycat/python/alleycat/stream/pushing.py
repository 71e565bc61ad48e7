"""Pushing boards to viewers: one message per race whose board a batch wrote, and one when a race is settled.

The publisher is a port: anything with ``publish(channel, events)`` (``push.Publisher`` sends to
AppSync Events; a test's records what would be sent). A failure is logged and counted, never a
failed record: the board in the table is the truth, and viewers read it again on a reconnect.
"""

from __future__ import annotations

from typing import Protocol

from .. import entities as e
from .. import parallel, push, races
from ..observability import count, logger


class Publisher(Protocol):
    def publish(self, channel: str, events: list[dict]) -> object: ...


def push_boards(publisher: Publisher | None, boards: dict[str, list[e.RaceBoard]], changed: dict[str, set[str]]) -> None:
    """The live board of each race, from the shards as this batch wrote them; a race with a shard
    this batch did not write (a small race, or a quiet second) is read once, with its status."""
    if publisher is None or not boards:
        return

    def push_board(race_id: str, written: list[e.RaceBoard]) -> None:
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
