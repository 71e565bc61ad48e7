"""Writes of items derived from others, done by the stream processor after a write.

Entries take their chunks' totals, boards their racers' standings, Best and class
boards the finished races, packed chunks the live ones; names follow renames. Each
write sets absolute values, so doing it twice changes nothing.
"""

from __future__ import annotations

from decimal import Decimal

from . import entities as e
from . import keys
from .attributes import to_attr
from .board import NAME_INDEX, Standing
from .dynamo import batch, call, conditional, get, key_from, key_of, query_all, send, table_name, values
from .errors import error_code, translate
from .schema import INVERTED_INDEX


def set_entry_chunks(race_id: str, racer_id: str, totals: dict[int, list],
                     ranked_too: bool = False) -> tuple[e.Entry | None, bool]:
    """Records chunks' [points, lastSecond] on the racer's entry in one write, unless the entry
    is ranked already and not ``ranked_too`` (compaction owns a ranked entry's totals):
    (the entry before, whether written)."""
    from botocore.exceptions import ClientError

    try:
        response = send(
            "update_item", TableName=table_name(), Key=key_from(keys.ENTRY, raceId=race_id, racerId=racer_id),
            UpdateExpression="SET " + ", ".join(f"chunks.#c{chunk} = :c{chunk}" for chunk in totals),
            ConditionExpression="attribute_exists(PK)" + ("" if ranked_too else " AND NOT raceStatus = :finished"),
            ExpressionAttributeNames={f"#c{chunk}": str(chunk) for chunk in totals},
            ExpressionAttributeValues={**{f":c{chunk}": to_attr(pair) for chunk, pair in totals.items()},
                                       **({} if ranked_too else {":finished": to_attr(e.FINISHED)})},
            ReturnValues="ALL_OLD", ReturnValuesOnConditionCheckFailure="ALL_OLD")
        return e.from_item(response["Attributes"]), True
    except ClientError as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise translate(error) from error
        stored = error.response.get("Item")
        if stored is None:  # an engine that does not return the item on a failed condition
            return get(keys.ENTRY, True, raceId=race_id, racerId=racer_id), False
        return e.from_item(stored), False


# An update expression may not pass 4 KB: ~25 bytes a racer keeps 100 well under it.
STANDINGS_PER_WRITE = 100


def set_standings(race_id: str, shard: int, standings: dict[str, Standing]) -> None:
    """Sets racers' standings on one board shard (one write per 100 racers)."""
    racers = list(standings.items())
    for start in range(0, len(racers), STANDINGS_PER_WRITE):
        names, expression_values, sets = {}, {}, []
        for n, (racer_id, standing) in enumerate(racers[start:start + STANDINGS_PER_WRITE]):
            names[f"#r{n}"] = racer_id
            expression_values[f":r{n}"] = to_attr(standing.item())
            sets.append(f"standings.#r{n} = :r{n}")
        call("update_item", Key=key_of(e.RaceBoard(race_id, shard)), UpdateExpression="SET " + ", ".join(sets),
             ConditionExpression="attribute_exists(PK)", ExpressionAttributeNames=names,
             ExpressionAttributeValues=expression_values)


def rank_entry(race_id: str, racer_id: str, rank: int) -> None:
    call("update_item", Key=key_from(keys.ENTRY, raceId=race_id, racerId=racer_id),
         UpdateExpression="SET #rank = :rank, raceStatus = :finished",
         ExpressionAttributeNames={"#rank": "rank"}, ExpressionAttributeValues=values(rank=rank, finished=e.FINISHED))


def raise_best(best: e.Best) -> bool:
    """Stores the best score only if it beats the stored one; True when it did."""
    return conditional("put_item", Item=best.to_item(),
                       ConditionExpression="attribute_not_exists(bestScore) OR bestScore < :score",
                       ExpressionAttributeValues=values(score=best.bestScore)) is not None


def get_pace(class_id: str) -> e.BestPace:
    return get(keys.BEST_PACE, True, classId=class_id) or e.BestPace(class_id)


def reserve_pace(pace: e.BestPace, until: Decimal) -> bool:
    """Moves the class's next free Best slot to ``until`` if nobody did since ``pace`` was read."""
    if pace.nextFree == 0:
        return conditional("put_item", Item=e.BestPace(pace.classId, until).to_item(),
                           ConditionExpression="attribute_not_exists(PK)") is not None
    return conditional("update_item", Key=key_of(pace), UpdateExpression="SET nextFree = :until",
                       ConditionExpression="nextFree = :seen",
                       ExpressionAttributeValues=values(until=until, seen=pace.nextFree)) is not None


def get_class_board(class_id: str) -> e.ClassBoard | None:
    return get(keys.CLASS_BOARD, True, classId=class_id)


def put_class_board(board: e.ClassBoard, version: int | None) -> bool:
    """Writes the board if nobody else did since ``version`` was read; False when someone did."""
    item = {**board.to_item(), "version": {"N": str((version or 0) + 1)}}
    if version is None:
        return conditional("put_item", Item=item, ConditionExpression="attribute_not_exists(PK)") is not None
    return conditional("put_item", Item=item, ConditionExpression="version = :version",
                       ExpressionAttributeValues=values(version=version)) is not None


def chunks_of(race_id: str, racer_id: str) -> list[e.Chunk | e.PackedChunk]:
    return _racer_items(racer_id, keys.CHUNK.sk.prefix(raceId=race_id, racerId=racer_id))


def entries_of(racer_id: str) -> list[e.Entry]:
    return [i for i in _racer_items(racer_id, keys.ENTRY.sk.prefix()) if isinstance(i, e.Entry)]


def bests_of(racer_id: str) -> list[e.Best]:
    return _racer_items(racer_id, keys.BEST.sk.prefix())


def _racer_items(racer_id: str, prefix: str) -> list:
    return query_all(KeyConditionExpression="PK = :pk AND begins_with(SK, :prefix)", ConsistentRead=True,
                     ExpressionAttributeValues=values(pk=keys.RACER.pk.build({"racerId": racer_id}), prefix=prefix))


def replace_chunks(packed: list[e.PackedChunk], live: list[e.Chunk]) -> bool:
    """Writes the packed chunks, then seals the live ones they replace (samples removed, the
    seconds they held kept as bits), each only if no sample reached it since it was read;
    False when one did (compact again)."""
    for start in range(0, len(packed), 25):
        puts = [{"PutRequest": {"Item": p.to_item()}} for p in packed[start:start + 25]]
        batch("batch_write_item", {table_name(): puts}, "UnprocessedItems")
    return all([_seal(chunk) for chunk in live])


def _seal(chunk: e.Chunk) -> bool:
    removed = ", ".join(e.sample_attribute(second) for second in chunk.samples)
    return conditional("update_item", Key=key_of(chunk),
                       UpdateExpression="SET sealed = :mask, points = :zero" + (f" REMOVE {removed}" if removed else ""),
                       ConditionExpression="points = :points",
                       ExpressionAttributeValues=values(mask=chunk.seal_mask(), zero=0, points=chunk.points)) is not None


def races_of_class(class_id: str) -> list[e.Race]:
    return query_all(IndexName=INVERTED_INDEX, KeyConditionExpression="SK = :sk AND begins_with(PK, :race)",
                     ExpressionAttributeValues=values(sk=keys.CLASS.sk.build({"classId": class_id}),
                                                      race=keys.RACE.pk.prefix()))


def mark_settled(race: e.Race) -> None:
    """Ranks, bests, class board and history of the race are final."""
    call("update_item", Key=key_of(race), UpdateExpression="SET settled = :true",
         ConditionExpression="attribute_exists(PK)", ExpressionAttributeValues=values(true=True))


def set_class_name(race: e.Race, name: str, was: str | None = None) -> None:
    """Sets the race's class name; with ``was``, only if the race still carries that name."""
    condition, named = ("className = :was", {"was": was}) if was is not None else ("attribute_exists(PK)", {})
    conditional("update_item", Key=key_of(race), UpdateExpression="SET className = :name",
                ConditionExpression=condition, ExpressionAttributeValues=values(name=name, **named))


def get_class(class_id: str) -> e.Class | None:
    return get(keys.CLASS, True, classId=class_id)


def get_racer(racer_id: str) -> e.Racer | None:
    return get(keys.RACER, True, racerId=racer_id)


def set_name(entity: e.Entity, name: str) -> None:
    """Sets a denormalised racer name on an item that carries one."""
    call("update_item", Key=key_of(entity), UpdateExpression="SET #name = :name",
         ConditionExpression="attribute_exists(PK)",
         ExpressionAttributeNames={"#name": "name"}, ExpressionAttributeValues=values(name=name))


def set_standing_name(board: e.RaceBoard | e.ClassBoard, racer_id: str, name: str) -> None:
    """Sets the name in a racer's board standing (in place) if the racer is on the board.

    A class board's version goes up too, so a merge that read it before fails and retries.
    """
    bump = " ADD version :one" if isinstance(board, e.ClassBoard) else ""
    conditional("update_item", Key=key_of(board), UpdateExpression=f"SET standings.#racer[{NAME_INDEX}] = :name" + bump,
                ConditionExpression="attribute_exists(standings.#racer)",
                ExpressionAttributeNames={"#racer": racer_id},
                ExpressionAttributeValues=values(name=name, **({"one": 1} if bump else {})))


