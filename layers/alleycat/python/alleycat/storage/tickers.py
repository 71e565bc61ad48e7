"""The race's ticker item (``TICK#raceId``, ``flows.ticking``): a partition of its own, one write a race second.

A claim is one conditional ``UpdateItem``: the second is the ticker's when no later second (nor the same
second by another invocation) was claimed. A retried claim of its own second is the ticker's again.
"""

from __future__ import annotations

from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.dynamo import conditional, key_of, values


def claim(race_id: str, second: int, owner: str) -> bool:
    """Race second ``second``'s message is ``owner``'s to send; False when another ticker has it or a later one."""
    return conditional(
        "update_item", Key=key_of(e.RaceTicker(race_id)), UpdateExpression="SET #second = :second, #owner = :owner, #type = :type",
        ConditionExpression="attribute_not_exists(#second) OR #second < :second OR (#second = :second AND #owner = :owner)",
        ExpressionAttributeNames={"#second": "second", "#owner": "owner", "#type": "type"},
        ExpressionAttributeValues=values(second=second, owner=owner, type=keys.RACE_TICKER.entity)) is not None
