"""The table gateway: one function per access pattern, each one DynamoDB request per page.

Handlers call these; nothing else talks to the table. Every key comes from ``keys``
through the entities, every item goes back through ``entities.from_item``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import entities as e
from . import keys, tokens
from .attributes import to_attr
from .errors import Conflict, NotFound, cancellation_codes, error_code, translate
from .schema import INVERTED_INDEX


@lru_cache(maxsize=1)
def client():
    import boto3  # deferred: only the first request pays for it
    from botocore.config import Config

    return boto3.client("dynamodb", config=Config(max_pool_connections=32, retries={"mode": "standard"}))


def table_name() -> str:
    return os.environ["TABLE_NAME"]


# Enough for a whole race of live 60-second chunks (3,600 s) plus its packed parts.
HISTORY_CHUNKS_PER_PAGE = 70


@dataclass
class Page:
    items: list
    next_token: str | None


def _values(**values: Any) -> dict:
    return {f":{name}": to_attr(value) for name, value in values.items()}


def _call(operation: str, conflict: str | None = None, **request: Any) -> dict:
    from botocore.exceptions import ClientError

    try:
        return getattr(client(), operation)(TableName=table_name(), **request)
    except ClientError as error:
        raise translate(error, conflict) if conflict else translate(error) from error


def _query(scope: str, token: str | None, entity_keys, *, index: str | None = None,
           partition: str, condition: str = "", limit: int, forward: bool = False,
           consistent: bool = False, **values: Any) -> Page:
    key_attr = "SK" if index else "PK"
    start = tokens.decode(token, scope, {key_attr: partition}, entity_keys)
    request = {
        "KeyConditionExpression": f"{key_attr} = :partition" + (f" AND {condition}" if condition else ""),
        "ExpressionAttributeValues": _values(partition=partition, **values),
        "ScanIndexForward": forward,
        "Limit": limit,
    }
    if consistent:
        request["ConsistentRead"] = True
    if index:
        request["IndexName"] = index
    if start:
        request["ExclusiveStartKey"] = start
    response = _call("query", **request)
    return Page(e.from_items(response.get("Items", [])), tokens.encode(response.get("LastEvaluatedKey"), scope))


def _get(entity_keys: keys.EntityKeys, consistent: bool = False, **values: Any) -> e.Entity | None:
    item = _call("get_item", Key={k: {"S": v} for k, v in entity_keys.key(values).items()},
                 ConsistentRead=consistent).get("Item")
    return e.from_item(item) if item else None


# --- racers -----------------------------------------------------------------

def put_racer(racer: e.Racer) -> None:
    _call("put_item", Item=racer.to_item())


def racer_results(racer_id: str, limit: int, token: str | None) -> tuple[e.Racer | None, Page]:
    """Pattern 1, results by racer: the racer's partition, newest race first, profile on top.

    ``RACER#id`` sorts after every ``RACE#...`` key, so in descending order the profile
    comes first on the first page; one extra item is read for it.
    """
    partition = keys.RACER.pk.build({"racerId": racer_id})
    first_page = token is None
    page = _query(f"results:{racer_id}", token, [keys.ENTRY, keys.RACER], partition=partition,
                  condition="SK BETWEEN :first AND :profile", limit=limit + first_page,
                  first=keys.ENTRY.sk.prefix(), profile=keys.RACER.sk.build({"racerId": racer_id}))
    racer = next((i for i in page.items if isinstance(i, e.Racer)), None)
    page.items = [i for i in page.items if isinstance(i, e.Entry)]
    return racer, page


def racer_history(racer_id: str, race_id: str | None, token: str | None) -> Page:
    """Pattern 5, second-by-second history: the racer's chunks, one race or all, newest race first.

    A page holds whole races: when a page ends inside a race, that race is left for the
    next page, whose token starts right after the last race kept.
    """
    partition = keys.RACER.pk.build({"racerId": racer_id})
    prefix = keys.CHUNK.sk.prefix(raceId=race_id, racerId=racer_id) if race_id else keys.CHUNK.sk.prefix()
    scope = f"history:{racer_id}:{race_id or ''}"
    page = _query(scope, token, [keys.CHUNK, keys.PACKED_CHUNK], partition=partition,
                  condition="begins_with(SK, :prefix)", limit=HISTORY_CHUNKS_PER_PAGE, prefix=prefix)
    last_race = page.items[-1].raceId if page.items else None
    if page.next_token and any(chunk.raceId != last_race for chunk in page.items):
        page.items = [chunk for chunk in page.items if chunk.raceId != last_race]
        page.next_token = tokens.encode(_key(page.items[-1]), scope)
    return page


def get_entry(race_id: str, racer_id: str, consistent: bool = False) -> e.Entry | None:
    return _get(keys.ENTRY, consistent, raceId=race_id, racerId=racer_id)


def get_racer(racer_id: str) -> e.Racer | None:
    return _get(keys.RACER, racerId=racer_id)


# --- classes ----------------------------------------------------------------

def put_class(klass: e.Class) -> None:
    _call("put_item", Item=klass.to_item())


def get_class(class_id: str) -> e.Class | None:
    return _get(keys.CLASS, classId=class_id)


def class_races(class_id: str, limit: int, token: str | None) -> tuple[e.Class | None, Page]:
    """Pattern 2, races by class: the inverted index under ``CLASS#id``, newest race first.

    The class itself (``CLASS#id`` in the index's sort key) sorts after every race; it is
    read on the last page only, so ``Race.className`` carries the name on every page.
    """
    partition = keys.CLASS.sk.build({"classId": class_id})
    page = _query(f"races:{class_id}", token, [keys.RACE, keys.CLASS], index=INVERTED_INDEX,
                  partition=partition, limit=limit)
    klass = next((i for i in page.items if isinstance(i, e.Class)), None)
    page.items = [i for i in page.items if isinstance(i, e.Race)]
    return klass, page


def class_leaderboard(class_id: str) -> tuple[e.Class | None, e.ClassBoard | None]:
    """Pattern 3, best per racer in a class: the class and its board, one partition."""
    page = _query(f"classboard:{class_id}", None, [], partition=keys.CLASS.pk.build({"classId": class_id}),
                  condition="SK BETWEEN :board AND :profile", limit=2, forward=True,
                  board=keys.CLASS_BOARD.sk.build({"classId": class_id}),
                  profile=keys.CLASS.sk.build({"classId": class_id}))
    klass = next((i for i in page.items if isinstance(i, e.Class)), None)
    board = next((i for i in page.items if isinstance(i, e.ClassBoard)), None)
    return klass, board


# --- races ------------------------------------------------------------------

def create_race(race: e.Race, request_key: str | None = None) -> e.Race:
    """The race and its empty board shards, all or nothing.

    With a ``request_key`` (the caller's Idempotency-Key) a marker is written in the
    same transaction; a retry finds it and gets the race it created the first time.
    """
    from botocore.exceptions import ClientError

    boards = [e.RaceBoard(race.raceId, shard) for shard in range(e.BOARD_SHARDS)]
    marker = [e.RaceRequest(race.classId, request_key, race.raceId)] if request_key else []
    puts = [{"Put": {"TableName": table_name(), "Item": item.to_item(),
                     "ConditionExpression": "attribute_not_exists(PK)"}} for item in (*marker, race, *boards)]
    try:
        client().transact_write_items(TransactItems=puts)
    except ClientError as error:
        if not marker or cancellation_codes(error)[:1] != ["ConditionalCheckFailed"]:
            raise translate(error) from error
        done = _get(keys.RACE_REQUEST, True, classId=race.classId, requestKey=request_key)
        return get_race(done.raceId, consistent=True)
    return race


def race_with_boards(race_id: str) -> tuple[e.Race | None, list[e.RaceBoard]]:
    """Pattern 4, top scores by race: the race's partition holds the race and its board shards."""
    partition = keys.RACE.pk.build({"raceId": race_id})
    page = _query(f"raceboard:{race_id}", None, [], partition=partition, limit=1 + e.BOARD_SHARDS)
    race = next((i for i in page.items if isinstance(i, e.Race)), None)
    return race, [i for i in page.items if isinstance(i, e.RaceBoard)]


def get_race(race_id: str, consistent: bool = False) -> e.Race | None:
    partition = keys.RACE.pk.build({"raceId": race_id})
    page = _query(f"race:{race_id}", None, [], partition=partition, condition="begins_with(SK, :prefix)",
                  limit=1, prefix=keys.RACE.sk.prefix(), consistent=consistent)
    return page.items[0] if page.items else None


def finish_race(race: e.Race) -> None:
    """Marks the race finished; finishing a finished race changes nothing."""
    _call("update_item", Key=_key(race), UpdateExpression="SET #status = :finished",
          ConditionExpression="attribute_exists(PK)",
          ExpressionAttributeNames={"#status": "status"}, ExpressionAttributeValues=_values(finished=e.FINISHED))


def join_race(race: e.Race, racer: e.Racer) -> e.Entry:
    """Adds the racer to the race, its count, its board and its history in one transaction.

    Idempotent: when the entry exists already the transaction is cancelled and the
    existing entry is returned unchanged.
    """
    from botocore.exceptions import ClientError

    entry = e.Entry(race.raceId, racer.racerId, racer.name, race.classId, race.startsAt)
    board = e.RaceBoard(race.raceId, e.RaceBoard.shard_of(racer.racerId))
    first_chunk = e.Chunk(race.raceId, racer.racerId, 0, race.classId)
    name = table_name()
    actions = [
        {"Put": {"TableName": name, "Item": entry.to_item(), "ConditionExpression": "attribute_not_exists(PK)"}},
        {"Put": {"TableName": name, "Item": first_chunk.to_item(), "ConditionExpression": "attribute_not_exists(PK)"}},
        {"Update": {"TableName": name, "Key": _key(race),
                    "UpdateExpression": "ADD racerCount :one",
                    "ConditionExpression": "#status = :open",
                    "ExpressionAttributeNames": {"#status": "status"},
                    "ExpressionAttributeValues": _values(one=1, open=e.OPEN)}},
        {"Update": {"TableName": name, "Key": _key(board),
                    "UpdateExpression": "SET standings.#racer = if_not_exists(standings.#racer, :standing)",
                    "ExpressionAttributeNames": {"#racer": racer.racerId},
                    "ExpressionAttributeValues": _values(standing=[0, None, racer.name])}},
    ]
    try:
        client().transact_write_items(TransactItems=actions)
    except ClientError as error:
        codes = cancellation_codes(error)
        if error_code(error) != "TransactionCanceledException" or "ConditionalCheckFailed" not in codes:
            raise translate(error) from error
        if codes[0] == "ConditionalCheckFailed":  # joined before: change nothing
            existing = get_entry(race.raceId, racer.racerId, consistent=True)
            if existing:
                return existing
        raise Conflict("the race is finished") from error
    return entry


def _key(entity: e.Entity) -> dict:
    return {name: {"S": value} for name, value in entity.key.items()}


# --- telemetry --------------------------------------------------------------

def add_samples(chunk: e.Chunk, points: dict[int, Any]) -> tuple[int, int]:
    """Writes the chunk's seconds that are not stored yet: (accepted, duplicates).

    One conditional UpdateItem sets every new second and adds their points; if any of
    them was stored meanwhile, the write is refused, the stored ones become duplicates
    and the rest is tried again.
    """
    from botocore.exceptions import ClientError

    pending = dict(chunk.samples)
    duplicates = 0
    key = _key(chunk)
    while pending:
        names = {"#type": e.TYPE, "#raceId": "raceId", "#racerId": "racerId", "#chunk": "chunk", "#classId": "classId"}
        values = _values(type=chunk.KEYS.entity, raceId=chunk.raceId, racerId=chunk.racerId, chunk=chunk.chunk,
                         classId=chunk.classId, points=sum(points[s] for s in pending))
        sets, absent = [], []
        for second, pair in pending.items():
            attribute = e.sample_attribute(second)
            values[f":{attribute}"] = to_attr(pair)
            sets.append(f"{attribute} = :{attribute}")
            absent.append(f"attribute_not_exists({attribute})")
        try:
            client().update_item(
                TableName=table_name(), Key=key,
                UpdateExpression="SET #type = :type, #raceId = :raceId, #racerId = :racerId, #chunk = :chunk, "
                                 "#classId = :classId, " + ", ".join(sets) + " ADD points :points",
                ConditionExpression=" AND ".join(absent),
                ExpressionAttributeNames=names, ExpressionAttributeValues=values,
                ReturnValuesOnConditionCheckFailure="ALL_OLD")
            return len(pending), duplicates
        except ClientError as error:
            if error_code(error) != "ConditionalCheckFailedException":
                raise translate(error) from error
            stored = error.response.get("Item") or {}
            present = [s for s in pending if e.sample_attribute(s) in stored]
            if not present:  # an older SDK or emulator without the item: read it
                stored = _call("get_item", Key=key, ConsistentRead=True).get("Item", {})
                present = [s for s in pending if e.sample_attribute(s) in stored]
            if not present:
                raise RuntimeError(f"chunk write refused with no stored second: {key}")
            for second in present:
                del pending[second]
            duplicates += len(present)
    return 0, duplicates


# --- after a write (the stream processor) -----------------------------------

def set_entry_chunks(race_id: str, racer_id: str, totals: dict[int, list]) -> e.Entry | None:
    """Records chunks' absolute [points, lastSecond] on the racer's entry, in one write.

    Re-applying changes nothing; the returned entry has every chunk's totals.
    """
    from botocore.exceptions import ClientError

    entry_key = keys.ENTRY.key({"raceId": race_id, "racerId": racer_id})
    names = {f"#c{chunk}": str(chunk) for chunk in totals}
    values = {f":c{chunk}": to_attr(pair) for chunk, pair in totals.items()}
    try:
        response = client().update_item(
            TableName=table_name(), Key={k: {"S": v} for k, v in entry_key.items()},
            UpdateExpression="SET " + ", ".join(f"chunks.#c{chunk} = :c{chunk}" for chunk in totals),
            ConditionExpression="attribute_exists(PK)",
            ExpressionAttributeNames=names, ExpressionAttributeValues=values, ReturnValues="ALL_NEW")
    except ClientError as error:
        if error_code(error) == "ConditionalCheckFailedException":
            return None
        raise translate(error) from error
    return e.from_item(response["Attributes"])


def set_standings(race_id: str, shard: int, standings: dict[str, list]) -> None:
    """Sets racers' [score, lastSecond, name] on one board shard in one write."""
    names, values, sets = {}, {}, []
    for n, (racer_id, standing) in enumerate(standings.items()):
        names[f"#r{n}"] = racer_id
        values[f":r{n}"] = to_attr(standing)
        sets.append(f"standings.#r{n} = :r{n}")
    _call("update_item", Key=_key(e.RaceBoard(race_id, shard)), UpdateExpression="SET " + ", ".join(sets),
          ConditionExpression="attribute_exists(PK)", ExpressionAttributeNames=names, ExpressionAttributeValues=values)


def get_entries(race_id: str, racer_ids: list[str]) -> list[e.Entry]:
    """Strongly consistent entries of the given racers, 100 keys per BatchGetItem."""
    found = []
    for start in range(0, len(racer_ids), 100):
        pending = {table_name(): {"ConsistentRead": True, "Keys": [
            {k: {"S": v} for k, v in keys.ENTRY.key({"raceId": race_id, "racerId": r}).items()}
            for r in racer_ids[start:start + 100]]}}
        while pending:
            response = _call_raw("batch_get_item", RequestItems=pending)
            found += e.from_items(response["Responses"].get(table_name(), []))
            pending = response.get("UnprocessedKeys") or {}
    return found


def rank_entry(race_id: str, racer_id: str, rank: int) -> None:
    _call("update_item", Key={k: {"S": v} for k, v in keys.ENTRY.key({"raceId": race_id, "racerId": racer_id}).items()},
          UpdateExpression="SET #rank = :rank, raceStatus = :finished",
          ExpressionAttributeNames={"#rank": "rank"}, ExpressionAttributeValues=_values(rank=rank, finished=e.FINISHED))


def raise_best(best: e.Best) -> bool:
    """Stores the best score only if it beats the stored one; True when it did."""
    from botocore.exceptions import ClientError

    try:
        client().put_item(TableName=table_name(), Item=best.to_item(),
                          ConditionExpression="attribute_not_exists(bestScore) OR bestScore < :score",
                          ExpressionAttributeValues=_values(score=best.bestScore))
        return True
    except ClientError as error:
        if error_code(error) == "ConditionalCheckFailedException":
            return False
        raise translate(error) from error


def get_class_board(class_id: str) -> e.ClassBoard | None:
    return _get(keys.CLASS_BOARD, True, classId=class_id)


def put_class_board(board: e.ClassBoard, version: int | None) -> bool:
    """Writes the board if nobody else did since ``version`` was read; False when someone did."""
    from botocore.exceptions import ClientError

    item = {**board.to_item(), "version": {"N": str((version or 0) + 1)}}
    condition = "attribute_not_exists(PK)" if version is None else "version = :version"
    request = {"TableName": table_name(), "Item": item, "ConditionExpression": condition}
    if version is not None:
        request["ExpressionAttributeValues"] = _values(version=version)
    try:
        client().put_item(**request)
        return True
    except ClientError as error:
        if error_code(error) == "ConditionalCheckFailedException":
            return False
        raise translate(error) from error


def chunks_of(race_id: str, racer_id: str) -> list[e.Chunk | e.PackedChunk]:
    return _racer_items(racer_id, keys.CHUNK.sk.prefix(raceId=race_id, racerId=racer_id))


def entries_of(racer_id: str) -> list[e.Entry]:
    return _racer_items(racer_id, keys.ENTRY.sk.prefix())


def bests_of(racer_id: str) -> list[e.Best]:
    return _racer_items(racer_id, keys.BEST.sk.prefix())


def _racer_items(racer_id: str, prefix: str) -> list:
    """Every item of the racer's partition under ``prefix`` (all pages; for the stream's work)."""
    request = {"KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)",
               "ExpressionAttributeValues": _values(pk=keys.RACER.pk.build({"racerId": racer_id}), prefix=prefix),
               "ConsistentRead": True}
    items = []
    while True:
        response = _call("query", **request)
        items += e.from_items(response.get("Items", []))
        if "LastEvaluatedKey" not in response:
            return [i for i in items if not isinstance(i, e.Racer)]
        request["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def set_name(entity: e.Entity, name: str) -> None:
    """Sets a denormalised racer name on an item that carries one."""
    _call("update_item", Key=_key(entity), UpdateExpression="SET #name = :name",
          ConditionExpression="attribute_exists(PK)",
          ExpressionAttributeNames={"#name": "name"}, ExpressionAttributeValues=_values(name=name))


def set_standing_name(board: e.RaceBoard | e.ClassBoard, racer_id: str, name: str) -> None:
    """Sets the name in a racer's board standing ([.., .., name]), if the racer is on the board."""
    from botocore.exceptions import ClientError

    try:
        client().update_item(TableName=table_name(), Key=_key(board),
                             UpdateExpression="SET standings.#racer[2] = :name",
                             ConditionExpression="attribute_exists(standings.#racer)",
                             ExpressionAttributeNames={"#racer": racer_id},
                             ExpressionAttributeValues=_values(name=name))
    except ClientError as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise translate(error) from error


def replace_chunks(packed: list[e.PackedChunk], live: list[e.Chunk]) -> None:
    """Writes the packed chunks, then deletes the live ones they replace."""
    requests = [{"PutRequest": {"Item": p.to_item()}} for p in packed]
    requests += [{"DeleteRequest": {"Key": _key(c)}} for c in live]
    for start in range(0, len(requests), 25):
        pending = {table_name(): requests[start:start + 25]}
        while pending:
            pending = _call_raw("batch_write_item", RequestItems=pending).get("UnprocessedItems") or {}


def races_of_class(class_id: str) -> list[e.Race]:
    request = {"IndexName": INVERTED_INDEX, "KeyConditionExpression": "SK = :sk AND begins_with(PK, :race)",
               "ExpressionAttributeValues": _values(sk=keys.CLASS.sk.build({"classId": class_id}),
                                                    race=keys.RACE.pk.prefix())}
    races = []
    while True:
        response = _call("query", **request)
        races += e.from_items(response.get("Items", []))
        if "LastEvaluatedKey" not in response:
            return races
        request["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def set_class_name(race: e.Race, name: str) -> None:
    _call("update_item", Key=_key(race), UpdateExpression="SET className = :name",
          ConditionExpression="attribute_exists(PK)", ExpressionAttributeValues=_values(name=name))


def _call_raw(operation: str, **request: Any) -> dict:
    """Like ``_call`` for the batch operations, whose table name lives in the request."""
    from botocore.exceptions import ClientError

    try:
        return getattr(client(), operation)(**request)
    except ClientError as error:
        raise translate(error) from error
