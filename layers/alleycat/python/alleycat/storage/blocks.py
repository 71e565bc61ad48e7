"""A race slice's second blocks (``entities.SecondBlock``): the fan-in's arbiter, first value wins (docs/fan-in.md).

``count`` is the one write of a (slice, second) a batch touches: each racer's value set only where absent, the
old values of those found returned (``ReturnValues=UPDATED_OLD``) and read by ``rules.fanin.arbitrate``. It has
no condition, so it is never refused, and sent again it changes nothing: what the first attempt counted comes
back as this origin's own.
"""

from __future__ import annotations

from collections.abc import Mapping

from alleycat.rules import fanin
from alleycat.rules.samples import Sample
from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.attributes import from_item, to_attr
from alleycat.storage.dynamo import key_from, send

# An update expression may hold 4 KB; a racer's clause, ``#a12 = if_not_exists(#a12, :a12), ``, about 34 bytes.
RACERS_PER_UPDATE = 100


def count(race_id: str, slice_: int, second: int, sent: Mapping[str, Sample], origin: str) -> fanin.Arbitration:
    """Counts ``sent`` (racerId -> sample) into the block of (race, slice, second) for ``origin``: one
    ``UpdateItem`` per ``RACERS_PER_UPDATE`` racers."""
    outcome = fanin.Arbitration()
    racers = list(sent)
    for start in range(0, len(racers), RACERS_PER_UPDATE):
        part = {racer_id: sent[racer_id] for racer_id in racers[start:start + RACERS_PER_UPDATE]}
        found = _update(race_id, slice_, second, part, origin)
        done = fanin.arbitrate(part, found, origin)
        outcome.counted.update(done.counted)
        outcome.retried.update(done.retried)
        outcome.duplicates.update(done.duplicates)
    return outcome


def _update(race_id: str, slice_: int, second: int, sent: Mapping[str, Sample], origin: str) -> dict[str, fanin.Counted]:
    names = {"#type": e.TYPE}
    values = {":type": to_attr(keys.SECOND_BLOCK.entity)}
    clauses = ["#type = if_not_exists(#type, :type)"]
    for index, (racer_id, sample) in enumerate(sent.items()):
        names[f"#a{index}"] = e.racer_attribute(racer_id)
        values[f":a{index}"] = to_attr(e.stored_counted(fanin.Counted(sample, origin)))
        clauses.append(f"#a{index} = if_not_exists(#a{index}, :a{index})")
    response = send("update_item", Key=key_from(keys.SECOND_BLOCK, raceId=race_id, slice=slice_, second=second),
                    UpdateExpression="SET " + ", ".join(clauses), ExpressionAttributeNames=names,
                    ExpressionAttributeValues=values, ReturnValues="UPDATED_OLD")
    return e.counted_in(from_item(response.get("Attributes", {})))
