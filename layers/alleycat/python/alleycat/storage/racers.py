"""The racer's partition (``RACER#racerId``): the racer, their entries, bests and history chunks.

Every read and write of these items, for the API and the stream alike. Pattern 1 (results by
racer) and pattern 5 (second-by-second history) are one Query of it per page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alleycat.rules import telemetry
from alleycat.rules.samples import Seconds, Totals
from alleycat.rules.telemetry import ChunkWrite, Keyed, StoredChunk
from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.attributes import to_attr
from alleycat.storage.dynamo import (
    ConditionFailed,
    batch,
    conditional,
    get_all,
    key_from,
    key_of,
    query_all,
    send,
    table_name,
    values,
)
from alleycat.storage.dynamo import get as _get
from alleycat.storage.paging import Page
from alleycat.storage.paging import next_token as _next_token
from alleycat.storage.paging import query as _query

HISTORY_CHUNKS_PER_PAGE = 130  # an hour-long race: 120 sealed chunks and 6 packed parts, one page


def put(racer: e.Racer) -> None:
    send("put_item", Item=racer.to_item())


def get(racer_id: str, consistent: bool = False) -> e.Racer | None:
    return _get(e.Racer, consistent, racerId=racer_id)


def results(racer_id: str, limit: int, token: str | None) -> tuple[e.Racer | None, Page]:
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


def history(racer_id: str, race_id: str | None, token: str | None) -> Page:
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


# --- entries ---------------------------------------------------------------

def get_entry(race_id: str, racer_id: str, consistent: bool = False) -> e.Entry | None:
    return _get(e.Entry, consistent, raceId=race_id, racerId=racer_id)


def get_entries(race_id: str, racer_ids: list[str]) -> list[e.Entry]:
    """Strongly consistent entries of the given racers."""
    found = get_all([key_from(keys.ENTRY, raceId=race_id, racerId=racer_id) for racer_id in racer_ids])
    return [item for item in found if isinstance(item, e.Entry)]


def entries_and_chunks(race_id: str, wanted: dict[str, set[int]]) -> list[tuple[e.Entry, dict[int, e.Chunk]]]:
    """The stream's read of a race: each racer's entry with the chunks named, as stored now
    (strongly consistent; ``wanted`` is racerId -> chunk numbers)."""
    found = get_all([key_from(keys.ENTRY, raceId=race_id, racerId=racer_id) for racer_id in wanted] +
                     [key_from(keys.CHUNK, raceId=race_id, racerId=racer_id, chunk=chunk)
                      for racer_id, chunks in wanted.items() for chunk in sorted(chunks)])
    chunks: dict[str, dict[int, e.Chunk]] = {}
    for item in found:
        if isinstance(item, e.Chunk):
            chunks.setdefault(item.racerId, {})[item.chunk] = item
    return [(item, chunks.get(item.racerId, {})) for item in found if isinstance(item, e.Entry)]


def entries_of(racer_id: str) -> list[e.Entry]:
    return [i for i in _racer_items(racer_id, keys.ENTRY.sk.prefix()) if isinstance(i, e.Entry)]


def set_entry_chunks(race_id: str, racer_id: str, totals: Mapping[int, Totals],
                     ranked_too: bool = False) -> tuple[e.Entry | None, bool]:
    """Records chunks' ``Totals`` on the racer's entry in one write, unless the entry
    is ranked already and not ``ranked_too`` (compaction owns a ranked entry's totals):
    (the entry before, whether written)."""
    try:
        response = send(
            "update_item", Key=key_from(keys.ENTRY, raceId=race_id, racerId=racer_id),
            UpdateExpression="SET " + ", ".join(f"chunks.#c{chunk} = :c{chunk}" for chunk in totals),
            ConditionExpression="attribute_exists(PK)" + ("" if ranked_too else " AND NOT raceStatus = :finished"),
            ExpressionAttributeNames={f"#c{chunk}": str(chunk) for chunk in totals},
            ExpressionAttributeValues={**{f":c{chunk}": to_attr(e.stored_totals(chunk_totals)) for chunk, chunk_totals in totals.items()},
                                       **({} if ranked_too else {":finished": to_attr(e.FINISHED)})},
            ReturnValues="ALL_OLD", ReturnValuesOnConditionCheckFailure="ALL_OLD")
        return e.item_as(e.Entry, response["Attributes"]), True
    except ConditionFailed as failed:
        stored = failed.item
        if stored is None:  # an engine that does not return the item on a failed condition
            return _get(e.Entry, True, raceId=race_id, racerId=racer_id), False
        return e.item_as(e.Entry, stored), False


def claim_ride(race_id: str, racer_id: str, device: str, tag: tuple[int, str] | None = None) -> str | None:
    """The device that holds the racer's ride once ``device`` asked for it: ``device`` if none held it. With the
    racer's ``tag`` ((slice, tag)) the slice's roster then names the holder too, unless it names one already: a
    takeover writes both in one transaction (``races.rejoin``), so a copy that comes after one changes nothing,
    and a claim cut short between the two writes is finished by the next claim that finds the roster naming none."""
    key = key_from(keys.ENTRY, raceId=race_id, racerId=racer_id)
    try:
        send("update_item", Key=key,
             UpdateExpression="SET device = :device", ConditionExpression="attribute_exists(PK) AND attribute_not_exists(device)",
             ExpressionAttributeValues=values(device=device), ReturnValuesOnConditionCheckFailure="ALL_OLD")
        holder: str | None = device
    except ConditionFailed as failed:
        stored = failed.item or send("get_item", Key=key, ConsistentRead=True).get("Item", {})
        holder = stored.get("device", {}).get("S")
    if tag is not None and holder is not None:
        conditional("update_item", Key=key_from(keys.SLICE_TAG, raceId=race_id, slice=tag[0], tag=tag[1]),
                    UpdateExpression="SET device = :device", ConditionExpression="racerId = :racer AND attribute_not_exists(device)",
                    ExpressionAttributeValues=values(device=holder, racer=racer_id))
    return holder


def rank_entry(race_id: str, racer_id: str, rank: int | None) -> None:
    send("update_item", Key=key_from(keys.ENTRY, raceId=race_id, racerId=racer_id),
         UpdateExpression="SET #rank = :rank, raceStatus = :finished",
         ExpressionAttributeNames={"#rank": "rank"}, ExpressionAttributeValues=values(rank=rank, finished=e.FINISHED))


def set_name(entity: e.Entity, name: str) -> None:
    """Sets a denormalised racer name on an item that carries one."""
    send("update_item", Key=key_of(entity), UpdateExpression="SET #name = :name",
         ConditionExpression="attribute_exists(PK)",
         ExpressionAttributeNames={"#name": "name"}, ExpressionAttributeValues=values(name=name))


def bests_of(racer_id: str) -> list[e.Best]:
    return _racer_items(racer_id, keys.BEST.sk.prefix())


def raise_best(best: e.Best) -> bool:
    """Stores the best score only if it beats the stored one; True when it did."""
    return conditional("put_item", Item=best.to_item(),
                       ConditionExpression="attribute_not_exists(bestScore) OR bestScore < :score",
                       ExpressionAttributeValues=values(score=best.bestScore)) is not None


def set_best(racer_id: str, class_id: str, best: e.Best | None) -> None:
    """Sets the racer's best in the class to ``best`` whatever it was (None: no best): a review's
    decision may lower it."""
    if best is None:
        send("delete_item", Key=key_from(keys.BEST, racerId=racer_id, classId=class_id))
    else:
        send("put_item", Item=best.to_item())


# --- history chunks --------------------------------------------------------

def add_samples(chunk: e.Chunk, points: Mapping[int, Any], request: Keyed | None = None,
                stored: StoredChunk | None = None) -> ChunkWrite:
    """Writes the chunk's seconds that are not stored yet; what became of each (``ChunkWrite``).

    With ``stored``, the chunk as read before (``stored_chunk``), what it settles is not written: when it
    holds every second, nothing is (a batch sent again costs its read alone).
    Each attempt is one conditional write of the seconds still pending (``_write_absent``); when it is
    refused, ``rules.telemetry.after_refusal`` decides from what is stored which seconds were duplicates,
    too late or to be tried again.

    With a ``request`` (sent with an Idempotency-Key: ``rules.telemetry.Keyed``) the write also records, in
    ``lastWrite``, the key, a digest of the whole request body and what became of the chunk's seconds, and
    is refused when the chunk records that key with another body (Unprocessable, 422: nothing written). The
    client's retry of that request (its first answer lost) finds its record there and gets the same counts,
    not "all duplicates", while no other request with a key wrote the same chunk in between. Without a key
    a re-sent sample is a duplicate, as the contract says.
    """
    pending = dict(chunk.samples)
    written = ChunkWrite()
    if stored is not None:
        pending = telemetry.settled(pending, stored, request, written)
    while pending:
        stored = _write_absent(chunk, pending, sum(points[second] for second in pending), request,
                               request.record(len(pending), written.duplicates) if request else None)
        if stored is None:
            written.accepted = len(pending)
            return written
        pending = telemetry.after_refusal(pending, stored, request, written)
    return written


def stored_chunk(number: int, found: e.Chunk | None) -> StoredChunk:
    """What a read of chunk ``number`` found (``found``: None when there is no such chunk yet)."""
    if found is None:
        return StoredChunk(number, frozenset())
    return StoredChunk(number, frozenset(found.samples), found.sealed, found.lastWrite)


def _write_absent(chunk: e.Chunk, seconds: Seconds, points, request: Keyed | None,
                  recording: str | None) -> StoredChunk | None:
    """One UpdateItem that sets ``seconds`` on the chunk (creating it if need be), adds ``points`` and
    records ``recording`` as ``lastWrite``, if none of the seconds is stored, the chunk is not sealed and
    it records ``request``'s key with no other body: None when written, else what the chunk holds."""
    key = key_of(chunk)
    names = {"#type": e.TYPE, "#raceId": "raceId", "#racerId": "racerId", "#chunk": "chunk", "#classId": "classId"}
    expression_values = values(type=chunk.KEYS.entity, raceId=chunk.raceId, racerId=chunk.racerId, chunk=chunk.chunk,
                               classId=chunk.classId, points=points)
    sets, absent = [], ["attribute_not_exists(sealed)"]
    if request is not None:
        expression_values.update(values(keyPrefix=request.key_prefix, requestPrefix=request.prefix))
        absent.append("(NOT begins_with(lastWrite, :keyPrefix) OR begins_with(lastWrite, :requestPrefix))")
    if recording:
        expression_values[":lastWrite"] = to_attr(recording)
        sets.append("lastWrite = :lastWrite")
    for attribute, stored_sample in e.stored_seconds(seconds).items():
        expression_values[f":{attribute}"] = to_attr(stored_sample)
        sets.append(f"{attribute} = :{attribute}")
        absent.append(f"attribute_not_exists({attribute})")
    try:
        send("update_item", Key=key,
             UpdateExpression="SET #type = :type, #raceId = :raceId, #racerId = :racerId, #chunk = :chunk, "
                              "#classId = :classId, " + ", ".join(sets) + " ADD points :points",
             ConditionExpression=" AND ".join(absent),
             ExpressionAttributeNames=names, ExpressionAttributeValues=expression_values,
             ReturnValuesOnConditionCheckFailure="ALL_OLD")
        return None
    except ConditionFailed as failed:
        item = failed.item
        if item is None:  # an older SDK or emulator without the item: read it
            item = send("get_item", Key=key, ConsistentRead=True).get("Item", {})
    return stored_chunk(chunk.chunk, e.item_as(e.Chunk, item) if item else None)


def chunks_of(race_id: str, racer_id: str) -> list[e.Chunk | e.PackedChunk]:
    return _racer_items(racer_id, keys.CHUNK.sk.prefix(raceId=race_id, racerId=racer_id))


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


def _racer_items(racer_id: str, prefix: str) -> list:
    return query_all(KeyConditionExpression="PK = :pk AND begins_with(SK, :prefix)", ConsistentRead=True,
                     ExpressionAttributeValues=values(pk=keys.RACER.pk.build({"racerId": racer_id}), prefix=prefix))
