"""A settled race's replay: its parts (``entities.ReplayPart``) in the race's partition, after the race
and its board, so one Query reads all three (a second page only past 1 MB: docs/capacity.md).

Written whole when the race is settled; a racer's row rewritten when a late record changed their
history after that (``stream.settlement.amend``). Names and ranks are the board's, read with it.
"""

from __future__ import annotations

from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.dynamo import batch, conditional, key_of, query_all, table_name, values

BATCH_WRITE_ITEMS = 25  # DynamoDB's limit for one BatchWriteItem


def write(parts: list[e.ReplayPart]) -> None:
    """Puts the replay's parts (absolute values: writing them again changes nothing)."""
    for start in range(0, len(parts), BATCH_WRITE_ITEMS):
        puts = [{"PutRequest": {"Item": part.to_item()}} for part in parts[start:start + BATCH_WRITE_ITEMS]]
        batch("batch_write_item", {table_name(): puts}, "UnprocessedItems")


def set_rows(race_id: str, racers: int, rows: dict[str, list[int]]) -> None:
    """Sets these racers' rows (racerId -> cumulative tenths) in the parts of a race of ``racers`` racers;
    a race settled before replays were written has no part to set them in, and keeps none."""
    parts = e.ReplayPart.count_for(racers)
    for racer_id, row in rows.items():
        part = e.ReplayPart(race_id, e.ReplayPart.part_of(racer_id, parts))
        conditional("update_item", Key=key_of(part), UpdateExpression="SET #rows.#racer = :row",
                    ConditionExpression="attribute_exists(PK)",
                    ExpressionAttributeNames={"#rows": "rows", "#racer": racer_id},
                    ExpressionAttributeValues=values(row=e.pack_row(row)))


def with_board(race_id: str) -> tuple[e.Race | None, list[e.RaceBoard], list[e.ReplayPart]]:
    """The race, its board shards and its replay's parts: the race's whole partition, one Query (and a
    page more for each MB past the first)."""
    found = query_all(KeyConditionExpression="PK = :partition",
                      ExpressionAttributeValues=values(partition=keys.RACE.pk.build({"raceId": race_id})))
    race = next((item for item in found if isinstance(item, e.Race)), None)
    return (race, [item for item in found if isinstance(item, e.RaceBoard)],
            sorted((item for item in found if isinstance(item, e.ReplayPart)), key=lambda part: part.part))
