"""The API's table gateway: one function per access pattern, each one DynamoDB request per page.

Handlers call these; the stream's writes live in ``derived``. Every key comes from
``keys`` through the entities, every item goes back through ``entities.from_item``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import catalog
from . import entities as e
from . import keys
from .attributes import to_attr
from .board import Standing
from .dynamo import batch, call, call_raw, client, get, key_from, key_of, send, table_name, values  # noqa: F401 - client: fixtures reset it
from .errors import Conflict, cancellation_codes, error_code, first_condition_failed, translate
from .paging import Page, next_token as _next_token, query as _query
from .schema import INVERTED_INDEX


HISTORY_CHUNKS_PER_PAGE = 130  # an hour-long race: 120 sealed chunks and 6 packed parts, one page


# --- racers -----------------------------------------------------------------

def put_racer(racer: e.Racer) -> None:
    call("put_item", Item=racer.to_item())


def racer_results(racer_id: str, limit: int, token: str | None) -> tuple[e.Racer | None, Page]:
    """Pattern 1, results by racer: the racer's partition, newest race first, profile on top.

    ``RACER#id`` sorts after every ``RACE#...`` key, so in descending order the profile
    comes first on the first page; one extra item is read for it. The page token carries
    the racer's name to the next pages (signed, so it is the name page 1 read).
    """
    partition = keys.RACER.pk.build({"racerId": racer_id})
    first_page = token is None
    page = _query(f"results:{racer_id}", token, [keys.ENTRY, keys.RACER], partition=partition,
                  condition="SK BETWEEN :first AND :profile", limit=limit + first_page,
                  first=keys.ENTRY.sk.prefix(), profile=keys.RACER.sk.build({"racerId": racer_id}))
    racer = next((i for i in page.items if isinstance(i, e.Racer)), None)
    page.items = [i for i in page.items if isinstance(i, e.Entry)]
    if racer is None and isinstance(page.carried.get("name"), str):
        racer = e.Racer(racer_id, page.carried["name"])  # later pages: the name page 1 read
    if racer is not None:
        page.next_token = _next_token(page.last_key, f"results:{racer_id}", {"name": racer.name})
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
                  condition="begins_with(SK, :prefix)", limit=HISTORY_CHUNKS_PER_PAGE, prefix=prefix,
                  sort_prefix=prefix)
    last_race = page.items[-1].raceId if page.items else None
    if page.next_token and any(chunk.raceId != last_race for chunk in page.items):
        page.items = [chunk for chunk in page.items if chunk.raceId != last_race]
        page.next_token = _next_token(key_of(page.items[-1]), scope)
    return page


def get_entry(race_id: str, racer_id: str, consistent: bool = False) -> e.Entry | None:
    return get(keys.ENTRY, consistent, raceId=race_id, racerId=racer_id)


def get_entries(race_id: str, racer_ids: list[str]) -> list[e.Entry]:
    """Strongly consistent entries of the given racers."""
    return _get_all([key_from(keys.ENTRY, raceId=race_id, racerId=racer_id) for racer_id in racer_ids])


def entries_and_chunks(race_id: str, wanted: dict[str, set[int]]) -> list[tuple[e.Entry, dict[int, e.Chunk]]]:
    """The stream's read of a race: each racer's entry with the chunks named, as stored now
    (strongly consistent; ``wanted`` is racerId -> chunk numbers)."""
    found = _get_all([key_from(keys.ENTRY, raceId=race_id, racerId=racer_id) for racer_id in wanted] +
                     [key_from(keys.CHUNK, raceId=race_id, racerId=racer_id, chunk=chunk)
                      for racer_id, chunks in wanted.items() for chunk in sorted(chunks)])
    chunks: dict[str, dict[int, e.Chunk]] = {}
    for item in found:
        if isinstance(item, e.Chunk):
            chunks.setdefault(item.racerId, {})[item.chunk] = item
    return [(item, chunks.get(item.racerId, {})) for item in found if isinstance(item, e.Entry)]


def gate_and_entries(race_id: str, racer_ids: list[str]) -> tuple[e.RaceGate | None, list[e.Entry]]:
    """Telemetry's one read: the race's gate copy for the first racer and the racers' entries,
    strongly consistent (a bike's sample: one request of two keys)."""
    gate_key = key_from(keys.RACE_GATE, raceId=race_id, copy=e.RaceGate.copy_for(racer_ids[0]))
    found = _get_all([gate_key] + [key_from(keys.ENTRY, raceId=race_id, racerId=racer_id) for racer_id in racer_ids])
    gate = next((item for item in found if isinstance(item, e.RaceGate)), None)
    return gate, [item for item in found if isinstance(item, e.Entry)]


def _get_all(wanted: list[dict]) -> list[e.Entity]:
    """The items under ``wanted`` keys that exist, strongly consistent, 100 keys per BatchGetItem
    (several at once when there are more: the stream's read of a 1,000-racer batch is 20)."""
    def page(keys_of_page: list[dict]) -> list[e.Entity]:
        request = {table_name(): {"ConsistentRead": True, "Keys": keys_of_page}}
        return [item for response in batch("batch_get_item", request, "UnprocessedKeys")
                for item in e.from_items(response["Responses"].get(table_name(), []))]

    pages = [wanted[start:start + 100] for start in range(0, len(wanted), 100)]
    if len(pages) <= 1:
        return page(pages[0]) if pages else []
    from concurrent.futures import ThreadPoolExecutor  # deferred: a bike's read is one page

    client()  # made once, before the threads share it
    with ThreadPoolExecutor(max_workers=min(8, len(pages))) as pool:
        return [item for found in pool.map(page, pages) for item in found]


def get_racer(racer_id: str, consistent: bool = False) -> e.Racer | None:
    return get(keys.RACER, consistent, racerId=racer_id)


# --- classes ----------------------------------------------------------------

def put_class(klass: e.Class) -> None:
    """The class and its card in the catalog, together."""
    call_raw("transact_write_items", TransactItems=catalog.put_class_actions(klass))


def get_class(class_id: str, consistent: bool = False) -> e.Class | None:
    return get(keys.CLASS, consistent, classId=class_id)


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
    """The race, its empty board shards and its gate copies, all or nothing.

    With a ``request_key`` (the caller's Idempotency-Key) a marker is written in the
    same transaction; a retry finds it and gets the race it created the first time.
    """
    from botocore.exceptions import ClientError

    marker = [e.RaceRequest(race.classId, request_key, race.raceId)] if request_key else []
    puts = [{"Put": {"TableName": table_name(), "Item": item.to_item(),
                     "ConditionExpression": "attribute_not_exists(PK)"}}
            for item in (*marker, *e.new_race_items(race))]
    try:
        send("transact_write_items", TransactItems=puts)
    except ClientError as error:
        if not marker or not first_condition_failed(error):
            raise translate(error) from error
        done = get(keys.RACE_REQUEST, True, classId=race.classId, requestKey=request_key)
        return get_race(done.raceId, consistent=True)
    return race


def race_with_boards(race_id: str, consistent: bool = False) -> tuple[e.Race | None, list[e.RaceBoard]]:
    """Pattern 4, top scores by race: the race's partition holds the race and its board shards."""
    partition = keys.RACE.pk.build({"raceId": race_id})
    page = _query(f"raceboard:{race_id}", None, [], partition=partition, limit=1 + e.BOARD_SHARDS,
                  consistent=consistent)
    race = next((i for i in page.items if isinstance(i, e.Race)), None)
    return race, [i for i in page.items if isinstance(i, e.RaceBoard)]


def get_race(race_id: str, consistent: bool = False) -> e.Race | None:
    partition = keys.RACE.pk.build({"raceId": race_id})
    page = _query(f"race:{race_id}", None, [], partition=partition, condition="begins_with(SK, :prefix)",
                  limit=1, prefix=keys.RACE.sk.prefix(), consistent=consistent)
    return page.items[0] if page.items else None


def finish_race(race: e.Race, only_if_open: bool = False) -> bool:
    """Marks the race and its gate copies finished and moves its card to the finished list, in one
    transaction; finishing it again before it is settled asks for the settlement again (a stream
    record), so a settlement that failed for good is re-run. A settled race changes nothing, nor
    does a finished one ``only_if_open`` (the finisher at the race's end). True when it wrote."""
    from botocore.exceptions import ClientError

    def finished(item: e.Entity, also: str = "", **extra) -> dict:
        return {"Update": {"TableName": table_name(), "Key": key_of(item), "UpdateExpression": "SET #status = :finished" + also,
                           "ExpressionAttributeNames": {"#status": "status"},
                           "ExpressionAttributeValues": values(finished=e.FINISHED, **extra)}}

    race_update = finished(race, " ADD finishRequests :one", one=1, **({"open": e.OPEN} if only_if_open else {}))
    race_update["Update"]["ConditionExpression"] = (
        "#status = :open" if only_if_open else "attribute_exists(PK) AND attribute_not_exists(settled)")
    actions = [race_update, *catalog.finish_actions(race)] + [finished(gate) for gate in e.RaceGate.copies_of(race)]
    try:
        send("transact_write_items", TransactItems=actions)
    except ClientError as error:
        if not first_condition_failed(error):
            raise translate(error) from error
        return False
    return True


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
        {"Update": {"TableName": name, "Key": key_of(race),
                    "UpdateExpression": "ADD racerCount :one",
                    "ConditionExpression": "#status = :open",
                    "ExpressionAttributeNames": {"#status": "status"},
                    "ExpressionAttributeValues": values(one=1, open=e.OPEN)}},
        {"Update": {"TableName": name, "Key": key_of(board),
                    "UpdateExpression": "SET standings.#racer = if_not_exists(standings.#racer, :standing)",
                    "ExpressionAttributeNames": {"#racer": racer.racerId},
                    "ExpressionAttributeValues": values(standing=Standing.joined(racer.racerId, racer.name).item())}},
    ]
    try:
        send("transact_write_items", TransactItems=actions)
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


# --- telemetry --------------------------------------------------------------

@dataclass
class ChunkWrite:
    """What one chunk write did with its seconds."""

    accepted: int = 0
    duplicates: int = 0
    too_late: list = field(default_factory=list)  # seconds for a chunk sealed by the race's finish


def add_samples(chunk: e.Chunk, points: dict[int, Any], request_key: str | None = None) -> ChunkWrite:
    """Writes the chunk's seconds that are not stored yet.

    One conditional UpdateItem sets every new second and adds their points; if any of
    them was stored meanwhile, the write is refused, the stored ones become duplicates
    and the rest is tried again. A chunk sealed by compaction takes nothing: a second it
    held is a duplicate, any other is too late.

    With a ``request_key`` (the client's Idempotency-Key) the write also records, in
    ``lastWrite``, a digest of the key and samples and what became of them; the client's
    retry of that request (its first answer lost) finds its digest there and gets the same
    counts, not "all duplicates". That holds while no other batch wrote the same
    racer-minute in between. Without a key a re-sent sample is a duplicate, as the
    contract says.
    """
    from botocore.exceptions import ClientError

    pending = dict(chunk.samples)
    outcome = ChunkWrite()
    key = key_of(chunk)
    digest = _digest(request_key, chunk.samples) if request_key else None
    while pending:
        names = {"#type": e.TYPE, "#raceId": "raceId", "#racerId": "racerId", "#chunk": "chunk", "#classId": "classId"}
        expression_values = values(type=chunk.KEYS.entity, raceId=chunk.raceId, racerId=chunk.racerId, chunk=chunk.chunk,
                         classId=chunk.classId, points=sum(points[s] for s in pending))
        recording = ""
        if digest:
            expression_values[":lastWrite"] = to_attr(f"{digest}:{len(pending)}:{outcome.duplicates}")
            recording = "lastWrite = :lastWrite, "
        sets, absent = [], ["attribute_not_exists(sealed)"]
        for second, pair in pending.items():
            attribute = e.sample_attribute(second)
            expression_values[f":{attribute}"] = to_attr(pair)
            sets.append(f"{attribute} = :{attribute}")
            absent.append(f"attribute_not_exists({attribute})")
        try:
            send(
                "update_item", TableName=table_name(), Key=key,
                UpdateExpression="SET #type = :type, #raceId = :raceId, #racerId = :racerId, #chunk = :chunk, "
                                 "#classId = :classId, " + recording + ", ".join(sets) + " ADD points :points",
                ConditionExpression=" AND ".join(absent),
                ExpressionAttributeNames=names, ExpressionAttributeValues=expression_values,
                ReturnValuesOnConditionCheckFailure="ALL_OLD")
            outcome.accepted = len(pending)
            return outcome
        except ClientError as error:
            if error_code(error) != "ConditionalCheckFailedException":
                raise translate(error) from error
            stored = error.response.get("Item")
            if stored is None:  # an older SDK or emulator without the item: read it
                stored = call("get_item", Key=key, ConsistentRead=True).get("Item", {})
            recorded = stored.get("lastWrite", {}).get("S", "").split(":")
            if digest and recorded[0] == digest and not outcome.duplicates:  # this very request, sent again
                outcome.accepted, outcome.duplicates = int(recorded[1]), int(recorded[2])
                return outcome
            if "sealed" in stored:
                sealed = e.from_item(stored)
                for second in pending:
                    if sealed.was_sealed_with(second):
                        outcome.duplicates += 1
                    else:
                        outcome.too_late.append(second)
                return outcome
            present = [s for s in pending if e.sample_attribute(s) in stored]
            if not present:
                raise RuntimeError(f"chunk write refused with no stored second: {key}")
            for second in present:
                del pending[second]
            outcome.duplicates += len(present)
    return outcome


def _digest(request_key: str, samples: dict[int, list]) -> str:
    """Names one chunk write of one request: the same key and samples give the same digest."""
    import hashlib

    text = request_key + "|" + ";".join(
        f"{second},{cadence},{resistance}" for second, (cadence, resistance) in sorted(samples.items()))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
