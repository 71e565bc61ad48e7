"""Pushing to viewers: a race's board (its ticker's message, ``flows.ticking``), and a message when a race is
final (settled, or a review decided once it was).

The publisher is a port: anything with ``publish(channel, events)`` (``aws.events.Publisher`` sends to
AppSync Events; a test's records what would be sent); each event is a message ``push.encoded``.
A failure is logged and counted, never raised: the board in the table is the truth, and viewers
read it again on a reconnect.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Protocol

from alleycat.edge import push
from alleycat.observability import count, logger
from alleycat.storage import entities as e


class Publisher(Protocol):
    def publish(self, channel: str, events: list[dict]) -> object: ...


def push_board(publisher: Publisher, race_id: str, boards: list[e.RaceBoard], changed: Iterable[str], status: str,
               top_before: Collection[str] | None = None) -> set[str] | None:
    """The race's board as read, with ``changed`` racers as its rows that moved (``top_before``: the top
    rows' racers of the last message sent, ``push.board_update``): the changed racers it left out; None when it failed."""
    try:
        message, left_out = push.board_update(race_id, boards, changed, status, top_before=top_before)
        _publish(publisher, race_id, message)
    except Exception as error:  # noqa: BLE001 - viewers read the board over HTTP on a reconnect anyway
        _failed("board push failed", race_id, error)
        return None
    return left_out


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
