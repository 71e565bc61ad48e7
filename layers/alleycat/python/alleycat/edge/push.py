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
from collections import Counter
from collections.abc import Collection
from decimal import Decimal

from alleycat.rules import board, scores

NAMESPACE = "races"
# A delivery (the message and AppSync's ~120-byte data frame) under 1.5 KB: a 1,000-racer board's message
# at about the design's 1.3 KB, its rows chosen as before (the top, then the changed racers in board order).
MAX_MESSAGE_BYTES = 1300
TOP_ROWS = 10  # always sent, changed or not: a viewer's first rows heal from any missed message
SLACK_BYTES = 16  # for ``more``'s digits
# 4: rows [rank, who, score, lastSecond, equipment?, review?] (``who``: the racer's ``key``, their id where
# another racer of the board shares it, ``[racerId, name]`` for a top row new to the top); packed as
# columns of steps (``encoded``), gzip-compressed, base64 (``z``). 3: [rank, racerId, score, lastSecond,
# equipment, review, name?] in ``z``; 2 the same without equipment and review; 1 sent them as JSON (``rows``)
MESSAGE_VERSION = 4
KEY_BITS = 20
BIKE = "bike"
SCORE_UNITS = 10_000  # a score's 4 decimal places (``scores.number``) as an integer


def channel(race_id: str) -> str:
    """The race's channel, ``/races/<raceId>`` (a ULID: letters and digits, as channel segments must be)."""
    return f"/{NAMESPACE}/{race_id}"


def key(racer_id: str) -> int:
    """The racer's short key in a message: FNV-1a (32 bits) of their id's UTF-8, its low ``KEY_BITS``
    (``keyOf`` in frontend/src/push.js: the page finds the racers it holds by it)."""
    value = 0x811C9DC5
    for byte in racer_id.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value & ((1 << KEY_BITS) - 1)


def _dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def board_message(race_id: str, boards, changed, status: str = "open", max_bytes: int = MAX_MESSAGE_BYTES,
                  now: float | None = None, top_before: Collection[str] | None = None) -> dict:
    """``board_update``'s message."""
    return board_update(race_id, boards, changed, status, max_bytes, now, top_before)[0]


def board_update(race_id: str, boards, changed, status: str = "open", max_bytes: int = MAX_MESSAGE_BYTES,
                 now: float | None = None, top_before: Collection[str] | None = None) -> tuple[dict, set[str]]:
    """The message for the race's board (``RaceBoard`` shards as stored) after ``changed`` racers' writes;
    ``status`` the race's when it was read with them (a live board pushed as written is "open");
    ``top_before``: the racers of the top rows of the previous message (None: none known), the others of
    the top rows are sent with their ids and names.

    ``rows`` are the board's delta (``board.Board.delta``): the top ``TOP_ROWS`` always, then the
    changed racers ranked below them, while the message as sent (``encoded``) stays within ``max_bytes``;
    and the changed racers it left out.
    """
    ranked = board.Board.from_shards(boards)
    message = {"v": MESSAGE_VERSION, "raceId": race_id, "status": status, "racers": len(ranked),
               "at": round((time.time() if now is None else now) * 1000), "rows": [], "more": 0}
    budget = max_bytes - SLACK_BYTES - len(_dumps(encoded(message)).encode()) + len(_packed([]))
    delta, more = ranked.delta(changed, 2**31, TOP_ROWS)
    rows = _keyed(delta, ranked, set() if top_before is None else set(top_before))
    sent, packed = len(rows), _packed(rows)
    while len(packed) > budget:  # a few rounds: the rows compress alike
        sent = min(sent - 1, sent * budget // len(packed))
        packed = _packed(rows[:sent])
    changed = set(changed)
    left_out = {row[1] for row in delta[sent:]} & changed
    message["rows"], message["more"] = rows[:sent], more + len(left_out)
    return message, left_out


def top_racers(boards) -> set[str]:
    """The racers of the board's top rows (the ticker's ``top_before`` for its next message)."""
    return {standing.racer_id for standing in board.Board.from_shards(boards).ranked()[:TOP_ROWS]}


def _keyed(delta: list[list], ranked: board.Board, top_before: set[str]) -> list[list]:
    """``Board.delta``'s rows as a message's: ``who`` for the racer id, defaults (a bike, no review) left off."""
    keys = Counter(key(racer_id) for racer_id in ranked.standings)
    rows = []
    for rank, racer_id, score, last_second, equipment, review, *name in delta:
        if name and racer_id not in top_before:
            who: int | str | list = [racer_id, name[0]]
        else:
            who = racer_id if keys[key(racer_id)] > 1 else key(racer_id)
        extra = [equipment, review] if review is not None else [equipment] if equipment != BIKE else []
        rows.append([rank, who, score, last_second, *extra])
    return rows


def encoded(message: dict) -> dict:
    """The message as published: its rows as columns (ranks, whos, scores in ``SCORE_UNITS``, last seconds;
    each number but a who the step from the column's last non-null value), the rows' extras (``[index,
    equipment, review?]``), as compact JSON, gzip-compressed, base64 (``z``)."""
    if "rows" not in message:
        return message
    return {**{key: value for key, value in message.items() if key != "rows"}, "z": _packed(message["rows"])}


def decoded(event: dict) -> dict:
    """A published message with its rows read back (``rows``), as a viewer reads it."""
    if "z" not in event:
        return event
    packed = json.loads(gzip.decompress(base64.b64decode(event["z"])))
    rows = _unpacked(packed) if event.get("v", 0) >= 4 else packed
    return {**{key: value for key, value in event.items() if key != "z"}, "rows": rows}


def _steps(values: list) -> list:
    last, steps = 0, []
    for value in values:
        steps.append(None if value is None else value - last)
        last = last if value is None else value
    return steps


def _sums(steps: list) -> list:
    last, values = 0, []
    for step in steps:
        last = last if step is None else last + step
        values.append(None if step is None else last)
    return values


def _columns(rows: list[list]) -> list:
    units = [None if row[2] is None else round(row[2] * SCORE_UNITS) for row in rows]
    return [_steps([row[0] for row in rows]), [row[1] for row in rows], _steps(units),
            _steps([row[3] for row in rows]), [[index, *row[4:]] for index, row in enumerate(rows) if len(row) > 4]]


def _unpacked(columns: list) -> list[list]:
    ranks, whos, units, seconds, extras = columns
    rows = [[rank, who, scores.number(Decimal(unit) / SCORE_UNITS), second]
            for rank, who, unit, second in zip(_sums(ranks), whos, _sums(units), _sums(seconds), strict=True)]
    for index, *extra in extras:
        rows[index] += extra
    return rows


def _packed(rows: list) -> str:
    return base64.b64encode(gzip.compress(_dumps(_columns(rows)).encode(), mtime=0)).decode()


def finished_message(race_id: str, now: float | None = None) -> dict:
    """The race is finished: viewers read the final board over HTTP."""
    return {"v": MESSAGE_VERSION, "raceId": race_id, "status": "finished", "racers": None,
            "at": round((time.time() if now is None else now) * 1000), "rows": [], "more": 0}
