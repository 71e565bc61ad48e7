"""The class's partition (``CLASS#classId``): the class, its board, its Best pace and its race
requests; and its races, under ``CLASS#classId`` in the inverted index.

Every read and write of these items, for the API and the stream alike. Pattern 2 (races by class)
is one Query of the index, pattern 3 (best per racer in a class) one Query of the partition.
"""

from __future__ import annotations

from decimal import Decimal

from alleycat.errors import Conflict
from alleycat.rules.board import NAME_INDEX
from alleycat.storage import catalog, keys
from alleycat.storage import entities as e
from alleycat.storage.dynamo import Cancelled, conditional, key_from, key_of, query_all, send, table_name, values
from alleycat.storage.dynamo import get as _get
from alleycat.storage.paging import Page
from alleycat.storage.paging import query as _query
from alleycat.storage.schema import INVERTED_INDEX


def put(klass: e.Class) -> None:
    """The class and its card in the catalog, together; Conflict when it would change the metric of a
    class that has races (their scores add up the metric they were created with)."""
    try:
        send("transact_write_items", TransactItems=catalog.put_class_actions(klass))
    except Cancelled as cancelled:
        if not cancelled.condition_failed(0):
            raise
        raise Conflict(f"class {klass.classId} has races: its metric cannot change to {klass.metric} "
                       "(create a new class for races scored by another metric)") from cancelled


def races_fixed_metric(klass: e.Class) -> dict:
    """The update that marks ``klass`` as having races, for the transaction that creates one: it holds only
    while the class still has the metric the race was given."""
    return {"Update": {"TableName": table_name(), "Key": key_of(klass), "UpdateExpression": "SET hasRaces = :yes",
                       "ConditionExpression": f"attribute_exists(PK) AND {catalog.metric_is(klass.metric)}",
                       "ExpressionAttributeValues": values(yes=True, metric=klass.metric)}}


def get(class_id: str, consistent: bool = False) -> e.Class | None:
    return _get(e.Class, consistent, classId=class_id)


def races(class_id: str, limit: int, token: str | None) -> tuple[e.Class | None, Page]:
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


def all_races(class_id: str) -> list[e.Race]:
    found = query_all(IndexName=INVERTED_INDEX, KeyConditionExpression="SK = :sk AND begins_with(PK, :race)",
                      ExpressionAttributeValues=values(sk=keys.CLASS.sk.build({"classId": class_id}),
                                                       race=keys.RACE.pk.prefix()))
    return [race for race in found if isinstance(race, e.Race)]


def leaderboard(class_id: str) -> tuple[e.Class | None, e.ClassBoard | None]:
    """Pattern 3, best per racer in a class: the class and its board, one partition."""
    page = _query(f"classboard:{class_id}", None, [], partition=keys.CLASS.pk.build({"classId": class_id}),
                  condition="SK BETWEEN :board AND :profile", limit=2, forward=True,
                  board=keys.CLASS_BOARD.sk.build({"classId": class_id}),
                  profile=keys.CLASS.sk.build({"classId": class_id}))
    klass = next((i for i in page.items if isinstance(i, e.Class)), None)
    board = next((i for i in page.items if isinstance(i, e.ClassBoard)), None)
    return klass, board


def get_board(class_id: str) -> e.ClassBoard | None:
    return _get(e.ClassBoard, True, classId=class_id)


def put_board(board: e.ClassBoard, version: int | None) -> bool:
    """Writes the board if nobody else did since ``version`` was read; False when someone did."""
    item = {**board.to_item(), "version": {"N": str((version or 0) + 1)}}
    if version is None:
        return conditional("put_item", Item=item, ConditionExpression="attribute_not_exists(PK)") is not None
    return conditional("put_item", Item=item, ConditionExpression="version = :version",
                       ExpressionAttributeValues=values(version=version)) is not None


def get_pace(class_id: str) -> e.BestPace:
    return _get(e.BestPace, True, classId=class_id) or e.BestPace(class_id)


def reserve_pace(pace: e.BestPace, until: Decimal) -> bool:
    """Moves the class's next free Best slot to ``until`` if nobody did since ``pace`` was read."""
    if pace.nextFree == 0:
        return conditional("put_item", Item=e.BestPace(pace.classId, until).to_item(),
                           ConditionExpression="attribute_not_exists(PK)") is not None
    return conditional("update_item", Key=key_of(pace), UpdateExpression="SET nextFree = :until",
                       ConditionExpression="nextFree = :seen",
                       ExpressionAttributeValues=values(until=until, seen=pace.nextFree)) is not None


def set_standing_name(class_id: str, racer_id: str, name: str) -> None:
    """Sets the name in a racer's standing (in place) if the racer is on the class board; its
    version goes up too, so a merge that read the board before fails and retries."""
    conditional("update_item", Key=key_from(keys.CLASS_BOARD, classId=class_id),
                UpdateExpression=f"SET standings.#racer[{NAME_INDEX}] = :name ADD version :one",
                ConditionExpression="attribute_exists(standings.#racer)",
                ExpressionAttributeNames={"#racer": racer_id}, ExpressionAttributeValues=values(name=name, one=1))
