"""The race's push gate (``PUSH#raceId``, ``rules.push_gate``): times in epoch milliseconds, one item written
in place, in a partition of its own (its writes, a few a second, stay out of the partition viewers read).

Each write is one conditional ``UpdateItem`` that returns the gate as it was.
"""

from __future__ import annotations

from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.dynamo import conditional, key_of, values

_NAMES = {"#next": "next", "#armed": "armed", "#pending": "pending", "#type": "type"}


def _write(race_id: str, expression: str, condition: str | None = None, **named) -> e.PushGate | None:
    """The gate before the write (an empty gate if it was new); None when ``condition`` was not met."""
    gate, said = e.PushGate(race_id), expression + (condition or "")
    request = {"Key": key_of(gate), "UpdateExpression": expression,
               "ExpressionAttributeNames": {name: value for name, value in _NAMES.items() if name in said},
               "ExpressionAttributeValues": values(type=keys.PUSH_GATE.entity, **named), "ReturnValues": "ALL_OLD"}
    if condition:
        request["ConditionExpression"] = condition
    answer = conditional("update_item", **request)
    if answer is None:
        return None
    return e.item_as(e.PushGate, answer["Attributes"]) if answer.get("Attributes") else gate


def note(race_id: str, shards: set[int], now: int) -> e.PushGate:
    """Board shards written for the next message, which is asked for now unless it was (the gate as it
    was says which: no ``armed``, this call asked)."""
    gate = _write(race_id, "ADD #pending :shards SET #armed = if_not_exists(#armed, :now), #type = :type",
                  shards=set(shards), now=now)
    assert gate is not None  # unconditional: always written
    return gate


def rearm(race_id: str, armed: int, now: int) -> bool:
    """The next message asked for again, in place of the one asked for at ``armed`` that never came."""
    return _write(race_id, "SET #armed = :now, #type = :type", "#armed = :armed", armed=armed, now=now) is not None


def take(race_id: str, now: int, next_at: int) -> e.PushGate | None:
    """The board publisher's message is sent ``now``, the next one due at ``next_at``: the gate as it was (its
    pending shards), or None when another message took it first or it is not due (``next`` after ``now``:
    this publish came so late that it was replaced)."""
    return _write(race_id, "SET #next = :next, #type = :type REMOVE #pending, #armed",
                  "attribute_exists(#armed) AND (attribute_not_exists(#next) OR #next <= :now)", next=next_at, now=now)
