"""The race's partition (``RACE#raceId``): the race and its board shards; and the race's gate copies,
in a partition of their own (its ticker item: ``tickers``).

Every read and write of these items, for the API and the stream alike. Pattern 4 (top scores by
race) is one Query of the race's partition.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC
from typing import NamedTuple

from alleycat import clock
from alleycat.errors import BadRequest, Conflict, Unprocessable
from alleycat.rules import fanin
from alleycat.rules.board import EQUIPMENT_INDEX, NAME_INDEX, REVIEW_INDEX, Standing
from alleycat.rules.fairplay import BIKE, equipment_after, latest_second
from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.attributes import to_attr
from alleycat.storage.dynamo import (
    Cancelled,
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
from alleycat.storage.paging import query as _query

# Exactly what the contract shows (fromisoformat alone lets a NUL or other odd characters through).
UTC_TIME = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?Z"


def starts_at(text: str, duration: int, now: float) -> str:
    """A new race's ``startsAt`` as stored (``clock.iso``'s form: UTC, whole seconds), or BadRequest
    when ``text`` is no UTC time, is not in ``clock.RACE_YEARS``, or the race would be over by ``now``
    (the request's time: ``startsAt + duration`` before it)."""
    import re  # creating a race only
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(text) if re.fullmatch(UTC_TIME, text, re.ASCII) else None
    except ValueError:
        moment = None
    if moment is None:
        raise BadRequest("startsAt must be an ISO 8601 time in UTC ending in Z, e.g. 2026-11-22T10:00:00Z")
    if moment.year not in clock.RACE_YEARS:
        first, last = clock.RACE_YEARS[0], clock.RACE_YEARS[-1]
        raise BadRequest(f"startsAt must be a time from {first} to {last}, e.g. 2026-11-22T10:00:00Z")
    start = int(moment.replace(tzinfo=UTC).timestamp())
    if start + duration < now:
        raise BadRequest(f"the race would already be over: startsAt {clock.iso(start)} plus durationSeconds {duration} "
                         f"ends at {clock.iso(start + duration)}, before now ({clock.iso(now)})")
    return clock.iso(start)


def create(race: e.Race, request_key: str | None = None, fixes_metric: dict | None = None) -> e.Race:
    """The race, its empty board shards and its gate copies, all or nothing; with ``fixes_metric`` (the update
    that marks its class as having races, ``classes.races_fixed_metric``) only while the class's metric is the
    race's: Conflict when it changed since the class was read.

    With a ``request_key`` (the caller's Idempotency-Key) a marker is written in the
    same transaction; a retry finds it and gets the race it created the first time, or
    Unprocessable when it asks for another race (the body as normalised: its class is the
    marker's, its startsAt and durationSeconds the first race's, which never change).
    """
    marker = [e.RaceRequest(race.classId, request_key, race.raceId)] if request_key else []
    puts = [{"Put": {"TableName": table_name(), "Item": item.to_item(),
                     "ConditionExpression": "attribute_not_exists(PK)"}}
            for item in (*marker, *e.new_race_items(race))]
    try:
        send("transact_write_items", TransactItems=puts + ([fixes_metric] if fixes_metric else []))
    except Cancelled as cancelled:
        if fixes_metric and cancelled.condition_failed(len(puts)):
            raise Conflict(f"class {race.classId} changed its metric while the race was created: try again") from cancelled
        if not marker or not cancelled.condition_failed(0):
            raise
        done = _get(e.RaceRequest, True, classId=race.classId, requestKey=request_key)
        first = get(done.raceId, consistent=True) if done else None
        if first is None:  # the request's marker and its race are written in one transaction
            raise RuntimeError(f"the race request {request_key!r} names no race") from cancelled
        if (first.startsAt, first.durationSeconds) != (race.startsAt, race.durationSeconds):
            raise Unprocessable(f"this Idempotency-Key created race {first.raceId} ({first.startsAt}, "
                                f"{first.durationSeconds} seconds) with a different body: use a new key for another race") from cancelled
        return first
    return race


def get(race_id: str, consistent: bool = False) -> e.Race | None:
    partition = keys.RACE.pk.build({"raceId": race_id})
    page = _query(f"race:{race_id}", None, [], partition=partition, condition="begins_with(SK, :prefix)",
                  limit=1, prefix=keys.RACE.sk.prefix(), consistent=consistent)
    return page.items[0] if page.items else None


def with_boards(race_id: str, consistent: bool = False) -> tuple[e.Race | None, list[e.RaceBoard]]:
    """Pattern 4, top scores by race: the race's partition holds the race, its board shards, its rosters and its
    slice boards (then, once it is settled, its replay: ``replays``, never read here). A racer the rosters name and
    no shard has yet (joined, not yet seen riding) is on the shards returned with score 0; one their slice's board
    counts (the fan-in) has its score and last second from it."""
    found = board_items(race_id, consistent)
    return found.race, with_rosters(race_id, found.boards, found.rosters, found.slice_boards,
                                    found.race.slices if found.race else None)


class BoardItems(NamedTuple):
    """The race's partition up to its replay, by kind."""

    race: e.Race | None
    boards: list[e.RaceBoard]
    rosters: list[e.RaceRoster]
    slice_boards: list[e.SliceBoard]


def board_items(race_id: str, consistent: bool = False) -> BoardItems:
    """The race, its board shards as stored, its rosters and its slice boards: one Query (a page more past 1 MB)."""
    found = query_all(KeyConditionExpression="PK = :partition AND SK < :replay", ConsistentRead=consistent,
                      ExpressionAttributeValues=values(partition=keys.RACE.pk.build({"raceId": race_id}),
                                                       replay=keys.REPLAY_PART.sk.prefix()))
    return BoardItems(next((i for i in found if isinstance(i, e.Race)), None),
                      [i for i in found if isinstance(i, e.RaceBoard)], [i for i in found if isinstance(i, e.RaceRoster)],
                      [i for i in found if isinstance(i, e.SliceBoard)])


def with_rosters(race_id: str, boards: list[e.RaceBoard], rosters: list[e.RaceRoster],
                 slice_boards: Iterable[e.SliceBoard] = (), slices: int | None = None) -> list[e.RaceBoard]:
    """``boards`` with each racer of ``rosters`` they lack on their shard, as joined (score 0), and each rostered
    racer's score and last second from their row on ``slice_boards`` (by the tag the roster keeps), where it has one."""
    by_shard = {board.shard: board for board in boards}
    rows = {(board.slice, tag): row for board in slice_boards for tag, row in board.standings.items()}
    for roster in rosters:
        for racer_id, (name, equipment, *tagged) in roster.racers.items():
            shard = by_shard.setdefault(e.RaceBoard.shard_of(racer_id), e.RaceBoard(race_id, e.RaceBoard.shard_of(racer_id)))
            standing = shard.standings.setdefault(racer_id, Standing.joined(racer_id, name, equipment).item())
            row = rows.get((fanin.slice_of(racer_id, slices), tagged[0])) if rows and slices and tagged else None
            if row is not None:
                standing[0], standing[1] = row.score, row.last_second
    return sorted(by_shard.values(), key=lambda board: board.shard)


def gate_and_entries(race_id: str, racer_ids: list[str], chunks: Iterable[tuple[str, int]] = ()
                     ) -> tuple[e.RaceGate | None, list[e.Entry], dict[tuple[str, int], e.Chunk]]:
    """Telemetry's one read: the race's gate copy for the first racer, the racers' entries and the
    ``chunks`` asked for ((racerId, chunk) -> the chunk, where it exists), strongly consistent (a
    bike's sample: one request of two keys)."""
    gate_key = key_from(keys.RACE_GATE, raceId=race_id, copy=e.RaceGate.copy_for(racer_ids[0]))
    found = get_all([gate_key] + [key_from(keys.ENTRY, raceId=race_id, racerId=racer_id) for racer_id in racer_ids]
                    + [key_from(keys.CHUNK, raceId=race_id, racerId=racer_id, chunk=chunk) for racer_id, chunk in chunks])
    gate = next((item for item in found if isinstance(item, e.RaceGate)), None)
    return (gate, [item for item in found if isinstance(item, e.Entry)],
            {(item.racerId, item.chunk): item for item in found if isinstance(item, e.Chunk)})


def gate(race_id: str, racer_id: str) -> e.RaceGate | None:
    """The race's gate copy for the racer, strongly consistent (an eventual read could miss a finish just done)."""
    return _get(e.RaceGate, consistent=True, raceId=race_id, copy=e.RaceGate.copy_for(racer_id))


def gate_and_racer(race_id: str, racer_id: str) -> tuple[e.RaceGate | None, e.Racer | None]:
    """A join's one read, strongly consistent: the race's gate copy for the racer and the racer."""
    found = get_all([key_from(keys.RACE_GATE, raceId=race_id, copy=e.RaceGate.copy_for(racer_id)),
                     key_from(keys.RACER, racerId=racer_id)])
    return (next((i for i in found if isinstance(i, e.RaceGate)), None),
            next((i for i in found if isinstance(i, e.Racer)), None))


def join(race: e.RaceGate | e.Race, racer: e.Racer, equipment: str = BIKE, device: str | None = None,
         now: float | None = None) -> e.Entry:
    """Adds the racer to the race: their entry and first chunk, in their own partition, while the race's gate
    copy (the racer's, one of ``GATE_COPIES``) says it is open; one transaction that writes nothing of the
    race's own partition and no item another join writes. The stream adds the racer to the race's
    count and board (``stream.joins``): a batch of joins is one write there.

    In a race of slices (``rules.fanin``) the racer claims a tag in their slice in the same transaction: the
    first of their candidates no other racer of the slice holds (a taken one cancels it, and it is sent again
    with the next); the entry keeps it.

    Idempotent: when the entry exists already the transaction is cancelled and the existing
    entry is kept, its score untouched; only its equipment (``fairplay.equipment_after``: virtual
    stays virtual once a second can have counted at ``now``, epoch seconds; None: it can) and, with a
    ``device``, the device that holds the ride change (``rejoin``).
    """
    tags = iter(fanin.tags_of(racer.racerId) if race.slices else [None])
    entry = e.Entry(race.raceId, racer.racerId, racer.name, race.classId, race.startsAt or "", equipment=equipment,
                    device=device, metric=race.metric, tag=next(tags))
    first_chunk = e.Chunk(race.raceId, racer.racerId, 0, race.classId)
    gate = e.RaceGate(race.raceId, e.RaceGate.copy_for(racer.racerId), race.classId, race.durationSeconds)
    name = table_name()
    while True:
        actions = [
            {"Put": {"TableName": name, "Item": entry.to_item(), "ConditionExpression": "attribute_not_exists(PK)"}},
            {"Put": {"TableName": name, "Item": first_chunk.to_item(), "ConditionExpression": "attribute_not_exists(PK)"}},
            {"ConditionCheck": {"TableName": name, "Key": key_of(gate), "ConditionExpression": "#status = :open",
                                "ExpressionAttributeNames": {"#status": "status"},
                                "ExpressionAttributeValues": values(open=e.OPEN)}},
        ]
        if entry.tag is not None and race.slices:  # the racer's tag in their slice, unless another racer holds it
            claim = e.SliceTag(race.raceId, fanin.slice_of(racer.racerId, race.slices), entry.tag, racer.racerId, device)
            actions.append({"Put": {"TableName": name, "Item": claim.to_item(),
                                    "ConditionExpression": "attribute_not_exists(PK) OR racerId = :racer",
                                    "ExpressionAttributeValues": values(racer=racer.racerId)}})
        try:
            send("transact_write_items", TransactItems=actions)
            return entry
        except Cancelled as cancelled:
            if not cancelled.condition_failed():
                raise
            if cancelled.condition_failed(0):  # joined before: keep the ride, move it if asked
                from alleycat.storage import racers  # only a join that finds it joined before reads the entry

                existing = racers.get_entry(race.raceId, racer.racerId, consistent=True)
                if existing:
                    can_have_ridden = now is None or latest_second(now, clock.epoch(existing.startsAt)) >= 0
                    return rejoin(existing, equipment, device, can_have_ridden, race.slices)
            if not cancelled.condition_failed(3) or cancelled.condition_failed(2):
                raise Conflict("the race is finished") from cancelled
            entry.tag = next(tags, None)  # another racer of the slice holds this tag: the next candidate
            if entry.tag is None:
                raise Conflict(f"racer {racer.racerId} finds no free tag in their slice of race {race.raceId}") from cancelled
    return entry


def rejoin(entry: e.Entry, equipment: str, device: str | None, can_have_ridden: bool = True,
           slices: int | None = None) -> e.Entry:
    """A racer joining a race again: the ride's equipment as ``fairplay.equipment_after`` says, and with a
    ``device`` the ride moved to it (a tagged racer's slice roster too, in a race of ``slices``: the log's consumer
    reads the device there); one transaction, retried when another join changed the entry in between.
    Only a change of equipment writes the board: the racer's standing in place, or, when the stream has not
    put the racer on a shard yet, the standing whole (the roster's row would show the equipment joined with)."""
    from alleycat.storage import racers

    on_board = True
    for _ in range(5):
        now_on = equipment_after(entry.equipment, equipment, can_have_ridden)
        moved = device is not None and device != entry.device
        if now_on == entry.equipment and not moved:
            return entry
        # An entry from before v1.2 has no equipment stored: it was a bike
        held = "(equipment = :was" + (" OR attribute_not_exists(equipment))" if entry.equipment == BIKE else ")")
        expression = "SET equipment = :equipment" + (", device = :device" if moved else "")
        actions = [{"Update": {"TableName": table_name(), "Key": key_of(entry), "UpdateExpression": expression,
                               "ConditionExpression": f"attribute_exists(PK) AND {held}",
                               "ExpressionAttributeValues": values(equipment=now_on, was=entry.equipment,
                                                                   **({"device": device} if moved else {}))}}]
        if now_on != entry.equipment:
            actions.append(_standing_equipment(entry, now_on, on_board))
        if moved and entry.tag is not None and slices:
            roster = key_from(keys.SLICE_TAG, raceId=entry.raceId, slice=fanin.slice_of(entry.racerId, slices), tag=entry.tag)
            actions.append({"Update": {"TableName": table_name(), "Key": roster, "UpdateExpression": "SET device = :device",
                                       "ConditionExpression": "racerId = :racer",
                                       "ExpressionAttributeValues": values(device=device, racer=entry.racerId)}})
        try:
            send("transact_write_items", TransactItems=actions)
            entry.equipment = now_on
            entry.device = device if moved else entry.device
            return entry
        except Cancelled as cancelled:
            if not cancelled.condition_failed():
                raise
            if now_on != entry.equipment and cancelled.condition_failed(1):
                on_board = not on_board
            if cancelled.condition_failed(0):
                entry = racers.get_entry(entry.raceId, entry.racerId, consistent=True) or entry
    raise Conflict("the ride kept changing while it was joined again: try again")


def _standing_equipment(entry: e.Entry, equipment: str, on_board: bool) -> dict:
    """The board's part of a change of equipment: in place when the racer is ``on_board``, else the whole standing."""
    board = e.RaceBoard(entry.raceId, e.RaceBoard.shard_of(entry.racerId))
    if on_board:
        return {"Update": {"TableName": table_name(), "Key": key_of(board),
                           "UpdateExpression": f"SET standings.#racer[{EQUIPMENT_INDEX}] = :equipment",
                           "ConditionExpression": "attribute_exists(standings.#racer)",
                           "ExpressionAttributeNames": {"#racer": entry.racerId},
                           "ExpressionAttributeValues": values(equipment=equipment)}}
    standing = Standing(entry.racerId, entry.score, entry.lastSecond, entry.name, equipment, entry.review)
    return {"Update": {"TableName": table_name(), "Key": key_of(board),
                       "UpdateExpression": "SET standings.#racer = :standing",
                       "ConditionExpression": "attribute_exists(PK) AND attribute_not_exists(standings.#racer)",
                       "ExpressionAttributeNames": {"#racer": entry.racerId},
                       "ExpressionAttributeValues": values(standing=standing.item())}}


def add_roster(race_id: str, batch: str, entries: list[e.Entry]) -> list[e.Entry]:
    """Puts the ``entries``' racers on a roster of the race and adds them to its ``racerCount``, each once
    however often the stream delivers their joins: one transaction with a mark on each entry (``rostered``, the
    roster's batch: a rename finds the row there), sent again without the racers already marked. Returns the
    entries rostered now."""
    left = list(entries)
    while left:
        roster = e.RaceRoster(race_id, batch, {entry.racerId: [entry.name, entry.equipment, *([entry.tag] if entry.tag else [])]
                                                 for entry in left})
        actions = [{"Put": {"TableName": table_name(), "Item": roster.to_item()}},
                   {"Update": {"TableName": table_name(), "Key": key_from(keys.RACE, raceId=race_id, classId=left[0].classId),
                               "UpdateExpression": "ADD racerCount :count", "ConditionExpression": "attribute_exists(PK)",
                               "ExpressionAttributeValues": values(count=len(left))}}]
        actions += [{"Update": {"TableName": table_name(), "Key": key_of(entry), "UpdateExpression": "SET rostered = :batch",
                                "ConditionExpression": "attribute_exists(PK) AND attribute_not_exists(rostered)",
                                "ExpressionAttributeValues": values(batch=batch)}} for entry in left]
        try:
            send("transact_write_items", TransactItems=actions)
            return left
        except Cancelled as cancelled:
            if not cancelled.condition_failed() or cancelled.condition_failed(1):
                raise
            left = [entry for n, entry in enumerate(left) if not cancelled.condition_failed(n + 2)]
    return []


def drop_rosters(rosters: list[e.RaceRoster]) -> None:
    """Deletes rosters the board has taken in whole (the settlement's final standings)."""
    for start in range(0, len(rosters), 25):
        deletes = [{"DeleteRequest": {"Key": key_of(roster)}} for roster in rosters[start:start + 25]]
        batch("batch_write_item", {table_name(): deletes}, "UnprocessedItems")


def finish(race: e.Race, only_if_open: bool = False) -> bool:
    """Marks the race and its gate copies finished and moves its card to the finished list, in one
    transaction; finishing it again before it is settled asks for the settlement again (a stream
    record), so a settlement that failed for good is re-run. A settled race changes nothing, nor
    does a finished one ``only_if_open`` (the finisher at the race's end). True when it wrote."""
    def finished(item: e.Entity, also: str = "", **extra) -> dict:
        return {"Update": {"TableName": table_name(), "Key": key_of(item), "UpdateExpression": "SET #status = :finished" + also,
                           "ExpressionAttributeNames": {"#status": "status"},
                           "ExpressionAttributeValues": values(finished=e.FINISHED, **extra)}}

    race_update = finished(race, " ADD finishRequests :one", one=1, **({"open": e.OPEN} if only_if_open else {}))
    race_update["Update"]["ConditionExpression"] = (
        "#status = :open" if only_if_open else "attribute_exists(PK) AND attribute_not_exists(settled)")
    from alleycat.storage import catalog  # finishing only

    actions = [race_update, *catalog.finish_actions(race)] + [finished(gate) for gate in e.RaceGate.copies_of(race)]
    try:
        send("transact_write_items", TransactItems=actions)
    except Cancelled as cancelled:
        if not cancelled.condition_failed(0):
            raise
        return False
    return True


def mark_settled(race: e.Race) -> None:
    """Ranks, bests, class board and history of the race are final."""
    send("update_item", Key=key_of(race), UpdateExpression="SET settled = :true",
         ConditionExpression="attribute_exists(PK)", ExpressionAttributeValues=values(true=True))


def set_class_name(race: e.Race, name: str, was: str | None = None) -> None:
    """Sets the race's class name; with ``was``, only if the race still carries that name."""
    condition, named = ("className = :was", {"was": was}) if was is not None else ("attribute_exists(PK)", {})
    conditional("update_item", Key=key_of(race), UpdateExpression="SET className = :name",
                ConditionExpression=condition, ExpressionAttributeValues=values(name=name, **named))


# An update expression may not pass 4 KB: ~25 bytes a racer keeps 100 well under it.
STANDINGS_PER_WRITE = 100


def set_standings(race_id: str, shard: int, standings: dict[str, Standing]) -> e.RaceBoard:
    """Sets racers' standings on one board shard (one write per 100 racers); the shard as written."""
    rows = list(standings.items())
    written = None
    for start in range(0, len(rows), STANDINGS_PER_WRITE):
        names, expression_values, sets = {}, {}, []
        for n, (racer_id, standing) in enumerate(rows[start:start + STANDINGS_PER_WRITE]):
            names[f"#r{n}"] = racer_id
            expression_values[f":r{n}"] = to_attr(standing.item())
            sets.append(f"standings.#r{n} = :r{n}")
        written = send("update_item", Key=key_of(e.RaceBoard(race_id, shard)), UpdateExpression="SET " + ", ".join(sets),
                       ConditionExpression="attribute_exists(PK)", ExpressionAttributeNames=names,
                       ExpressionAttributeValues=expression_values, ReturnValues="ALL_NEW")["Attributes"]
    return e.item_as(e.RaceBoard, written) if written else e.RaceBoard(race_id, shard)


def set_standing_review(race_id: str, standing: Standing) -> e.RaceBoard | None:
    """Sets ``standing``'s review in the racer's standing, in place (a live score beside it is not
    rewound): the shard as written, or None when the shard is not there. A standing stored before v1.2
    (score, lastSecond, name: no place for equipment and review) is written whole, as ``standing`` says,
    and so is the standing of a racer the board has only on a roster (joined, not yet seen riding)."""
    key = key_of(e.RaceBoard(race_id, e.RaceBoard.shard_of(standing.racer_id)))
    names = {"#racer": standing.racer_id}
    for _ in range(2):  # a standing written by the stream between the in-place try and the whole one: in place again
        written = conditional("update_item", Key=key, UpdateExpression=f"SET standings.#racer[{REVIEW_INDEX}] = :review",
                              ConditionExpression="size(standings.#racer) > :index", ExpressionAttributeNames=names,
                              ExpressionAttributeValues=values(review=standing.review, index=REVIEW_INDEX),
                              ReturnValues="ALL_NEW")
        for held in ("attribute_exists(standings.#racer)", "attribute_exists(PK) AND attribute_not_exists(standings.#racer)"):
            written = written or conditional("update_item", Key=key, UpdateExpression="SET standings.#racer = :standing",
                                             ConditionExpression=held, ExpressionAttributeNames=names,
                                             ExpressionAttributeValues=values(standing=standing.item()), ReturnValues="ALL_NEW")
        if written:
            return e.item_as(e.RaceBoard, written["Attributes"])
    return None


def set_standing_name(race_id: str, racer_id: str, name: str, rostered: str | None = None) -> None:
    """Sets the name in a racer's standing (in place) if the racer is on the race's board, and in their row of the
    roster ``rostered`` names."""
    if rostered:
        conditional("update_item", Key=key_of(e.RaceRoster(race_id, rostered)), UpdateExpression="SET racers.#racer[0] = :name",
                    ConditionExpression="attribute_exists(racers.#racer)",
                    ExpressionAttributeNames={"#racer": racer_id}, ExpressionAttributeValues=values(name=name))
    conditional("update_item", Key=key_of(e.RaceBoard(race_id, e.RaceBoard.shard_of(racer_id))),
                UpdateExpression=f"SET standings.#racer[{NAME_INDEX}] = :name",
                ConditionExpression="attribute_exists(standings.#racer)",
                ExpressionAttributeNames={"#racer": racer_id}, ExpressionAttributeValues=values(name=name))
