"""A race slice's second blocks (``entities.SecondBlock``), the fan-in's arbiter, first value wins, and its board
(``entities.SliceBoard``) (docs/fan-in.md).

``count`` is the one write of a (slice, second) a batch touches: each racer's value set only where absent, the
old values of those found returned (``ReturnValues=UPDATED_OLD``) and read by ``rules.fanin.arbitrate``. It has
no condition, so it is never refused, and sent again it changes nothing: what the first attempt counted comes
back as this origin's own.

``add_to_board`` is the one write of a slice's board a batch touches: read (strongly consistent: a fifth of a
write's price) and its changed rows set under the version read, so that the log's consumer and HTTP requests never lose
each other's seconds; its guard (``rules.fanin.add_gains``) counts a retried batch's seconds once.

``seconds_of`` reads a slice's blocks back, racer by racer (the settlement's); ``tags_in``, the racers its tags name (the
history writer's).

``claim_request`` records an HTTP request's Idempotency-Key with its body's digest before its blocks are written:
the key sent again with another body is refused there, nothing written (the contract's 422).
"""

from __future__ import annotations

from collections.abc import Mapping

from alleycat.errors import Busy
from alleycat.rules import fanin
from alleycat.rules.samples import Seconds
from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.attributes import from_item, to_attr
from alleycat.storage.dynamo import conditional, get, key_from, query_all, send, values

# An update expression may hold 4 KB; a racer's clause, ``#a12 = if_not_exists(#a12, :a12), ``, about 34 bytes.
RACERS_PER_UPDATE = 100
BOARD_TRIES = 10  # the board's version moved under us this often: another writer is hammering it


def count(race_id: str, slice_: int, second: int, sent: Mapping[str, fanin.Counted]) -> fanin.Arbitration:
    """Counts ``sent`` (a racer's tag -> the sample and the origin carrying it) into the block of (race, slice,
    second): one ``UpdateItem`` per ``RACERS_PER_UPDATE`` racers."""
    outcome = fanin.Arbitration()
    tags = list(sent)
    for start in range(0, len(tags), RACERS_PER_UPDATE):
        part = {tag: sent[tag] for tag in tags[start:start + RACERS_PER_UPDATE]}
        found = _update(race_id, slice_, second, part)
        done = fanin.arbitrate(part, found)
        outcome.counted.update(done.counted)
        outcome.retried.update(done.retried)
        outcome.duplicates.update(done.duplicates)
    return outcome


def _update(race_id: str, slice_: int, second: int, sent: Mapping[str, fanin.Counted]) -> dict[str, fanin.Counted]:
    names = {"#type": e.TYPE}
    values = {":type": to_attr(keys.SECOND_BLOCK.entity)}
    clauses = ["#type = if_not_exists(#type, :type)"]
    for index, (tag, counted) in enumerate(sent.items()):
        names[f"#a{index}"] = tag
        values[f":a{index}"] = to_attr(e.packed_counted(counted))
        clauses.append(f"#a{index} = if_not_exists(#a{index}, :a{index})")
    response = send("update_item", Key=key_from(keys.SECOND_BLOCK, raceId=race_id, slice=slice_, second=second),
                    UpdateExpression="SET " + ", ".join(clauses), ExpressionAttributeNames=names,
                    ExpressionAttributeValues=values, ReturnValues="UPDATED_OLD")
    return e.counted_in(from_item(response.get("Attributes", {})))


def claim_request(race_id: str, request: str, body: str) -> bool:
    """Records the telemetry request ``request`` (a caller's Idempotency-Key in the race) with its ``body``'s digest,
    or finds it recorded with that same body (a retry); False when it was recorded with another body. One
    ``UpdateItem`` (the telemetry route's action): 1 WCU a keyed HTTP request, none over MQTT."""
    item = e.TelemetryRequest(race_id, request, body).to_item()
    return conditional("update_item", Key=key_from(keys.TELEMETRY_REQUEST, raceId=race_id, request=request),
                       UpdateExpression="SET #type = :type, #body = :body",
                       ConditionExpression="attribute_not_exists(PK) OR #body = :body",
                       ExpressionAttributeNames={"#type": e.TYPE, "#body": "body"},
                       ExpressionAttributeValues={":type": item[e.TYPE], ":body": item["body"]}) is not None


def add_to_board(race_id: str, slice_: int, gains: list[fanin.Gain], lane: str | None) -> bool:
    """Adds ``gains`` to the slice's board as ``rules.fanin.add_gains`` guards them (``lane``: the Kinesis shard
    they came from, None for an HTTP request); whether it wrote. One ``UpdateItem`` (the telemetry functions'
    action) setting the rows it changed under the version it read; ``Busy`` when other writers kept moving it."""
    for _ in range(BOARD_TRIES):
        board = get(e.SliceBoard, True, raceId=race_id, slice=slice_) or e.SliceBoard(race_id, slice_)
        if not fanin.add_gains(board.standings, board.applied, board.recent, gains, lane):
            return False
        read, board.version = board.version, board.version + 1
        item = board.to_item()
        changed = [e.TYPE, "applied", "recent", *{gain.tag for gain in gains}]
        names = {f"#n{index}": name for index, name in enumerate(changed)} | {"#version": "version"}
        values = {f":v{index}": item[name] for index, name in enumerate(changed)}
        values[":version"] = item["version"]
        clauses = ["#version = :version", *(f"#n{index} = :v{index}" for index in range(len(changed)))]
        condition = "attribute_not_exists(PK)"
        if read:
            values[":read"], condition = to_attr(read), "#version = :read"
        if conditional("update_item", Key=key_from(keys.SLICE_BOARD, raceId=race_id, slice=slice_),
                       UpdateExpression="SET " + ", ".join(clauses), ConditionExpression=condition,
                       ExpressionAttributeNames=names, ExpressionAttributeValues=values) is not None:
            return True
    raise Busy(f"the board of race {race_id}'s slice {slice_} kept changing: retry")


def seconds_of(race_id: str, slice_: int, racers: Mapping[str, str], within: int,
               consistent: bool = True) -> dict[str, Seconds]:
    """The first values the slice's blocks hold for ``racers`` (tag -> racerId), racerId -> second -> sample, for
    the race's seconds before ``within`` (its duration): one Query of the slice's partition (paged past 1 MB)."""
    found: dict[str, Seconds] = {racer_id: {} for racer_id in racers.values()}
    partition = keys.SECOND_BLOCK.pk.build({"raceId": race_id, "slice": slice_})
    for block in query_all(KeyConditionExpression="PK = :partition AND begins_with(SK, :second)", ConsistentRead=consistent,
                           ExpressionAttributeValues=values(partition=partition, second=keys.SECOND_BLOCK.sk.prefix(raceId=race_id, slice=slice_))):
        if isinstance(block, e.SecondBlock) and block.second < within:
            for tag, counted in block.racers.items():
                if tag in racers:
                    found[racers[tag]][block.second] = counted.sample
    return found


def roster(race_id: str, slice_: int) -> list[e.SliceTag]:
    """The slice's tags (``entities.SliceTag``: each racer joined to the slice, and the device holding their ride):
    one Query of the slice's tags, strongly consistent (a takeover acknowledged is in it)."""
    partition = keys.SLICE_TAG.pk.build({"raceId": race_id, "slice": slice_})
    return [item for item in query_all(KeyConditionExpression="PK = :partition AND begins_with(SK, :tag)", ConsistentRead=True,
                                       ExpressionAttributeValues=values(partition=partition, tag=keys.SLICE_TAG.sk.prefix(raceId=race_id, slice=slice_)))
            if isinstance(item, e.SliceTag)]


def tags_in(race_id: str, slice_: int) -> dict[str, str]:
    """The racers the slice's tags name (tag -> racerId): ``roster``."""
    return {item.tag: item.racerId for item in roster(race_id, slice_)}
