"""Live race boards pushed to viewers: the message, as viewers read it (a pure function of the board).

Once a race second (``rules.ticking``: at a fixed phase after it, however many stream shards write the
board) the race's ticker sends, on the race's channel ``/races/<raceId>``, what changed
(``flows.ticking``): the top rows and every racer whose row changed since its last message, with
their ranks, as many as fit in ``MAX_MESSAGE_BYTES``
(``more`` counts the changed racers left out, all ranked below every row sent). Viewers
merge a message into the board they read over HTTP (a racer's row only moves forwards:
scores and seconds never go down in an open race), and re-read the board after a
reconnect, so a message lost, late or out of order costs freshness, never correctness.

A message is sent ``encoded`` (its rows compressed) by AppSync Events' HTTP publish (``aws.events``).
"""

from __future__ import annotations

import base64
import gzip
import json
import time

from alleycat.rules import board

NAMESPACE = "races"
# Under AppSync's 5 KB metering increment with its delivery envelope (~120 bytes: the message is a JSON
# string in a data frame; base64 rows need no escaping): one operation per delivery.
MAX_MESSAGE_BYTES = 4800
TOP_ROWS = 10  # always sent, changed or not: a viewer's first rows heal from any missed message
SLACK_BYTES = 16  # for ``more``'s digits
# 3: rows [rank, racerId, score, lastSecond, equipment, review, name?], gzip-compressed, base64 (``z``);
# 2 the same without equipment and review; 1 sent them as JSON (``rows``)
MESSAGE_VERSION = 3


def channel(race_id: str) -> str:
    """The race's channel, ``/races/<raceId>`` (a ULID: letters and digits, as channel segments must be)."""
    return f"/{NAMESPACE}/{race_id}"


def _dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def board_message(race_id: str, boards, changed, status: str = "open", max_bytes: int = MAX_MESSAGE_BYTES,
                  now: float | None = None) -> dict:
    """The message for the race's board (``RaceBoard`` shards as stored) after ``changed`` racers' writes;
    ``status`` the race's when it was read with them (a live board pushed as written is "open").

    ``rows`` are the board's delta (``board.Board.delta``): the top ``TOP_ROWS`` always, then the
    changed racers ranked below them, while the message as sent (``encoded``) stays within ``max_bytes``.
    """
    ranked = board.Board.from_shards(boards)
    message = {"v": MESSAGE_VERSION, "raceId": race_id, "status": status, "racers": len(ranked),
               "at": round((time.time() if now is None else now) * 1000), "rows": [], "more": 0}
    budget = max_bytes - SLACK_BYTES - len(_dumps(encoded(message)).encode()) + len(_packed([]))
    rows, more = ranked.delta(changed, 2**31, TOP_ROWS)
    sent, packed = len(rows), _packed(rows)
    while len(packed) > budget:  # a few rounds: the rows compress alike
        sent = min(sent - 1, sent * budget // len(packed))
        packed = _packed(rows[:sent])
    changed = set(changed)
    message["rows"], message["more"] = rows[:sent], more + sum(1 for row in rows[sent:] if row[1] in changed)
    return message


def encoded(message: dict) -> dict:
    """The message as published: its rows as compact JSON, gzip-compressed, base64 (``z``). A board's racer
    ids and figures repeat their shapes: 100 rows of Cognito ids take ~70 % of their JSON, the bench's ~35 %."""
    if "rows" not in message:
        return message
    return {**{key: value for key, value in message.items() if key != "rows"}, "z": _packed(message["rows"])}


def decoded(event: dict) -> dict:
    """A published message with its rows read back (``rows``), as a viewer reads it."""
    if "z" not in event:
        return event
    rows = json.loads(gzip.decompress(base64.b64decode(event["z"])))
    return {**{key: value for key, value in event.items() if key != "z"}, "rows": rows}


def _packed(rows: list) -> str:
    return base64.b64encode(gzip.compress(_dumps(rows).encode(), mtime=0)).decode()


def finished_message(race_id: str, now: float | None = None) -> dict:
    """The race is finished: viewers read the final board over HTTP."""
    return {"v": MESSAGE_VERSION, "raceId": race_id, "status": "finished", "racers": None,
            "at": round((time.time() if now is None else now) * 1000), "rows": [], "more": 0}
