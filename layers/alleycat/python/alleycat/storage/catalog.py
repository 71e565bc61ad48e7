"""The catalog: the lists people browse to find a class or a race, one partition per list.

``CLASSES`` holds a card per class, by classId. ``RACES#open`` and ``RACES#finished`` hold a card
per race, by start time: a race's state (upcoming, live, finished) is its list and its start
against the clock, so a race goes live with no write. Cards are written in the transactions that
create a class or race and finish a race; the stream keeps a card's racer count and class name
those of its race (``sync_race_card``). Every list page is one Query.
"""

from __future__ import annotations

from alleycat.rules.samples import OUTPUT
from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.dynamo import Cancelled, conditional, key_of, send, table_name, values
from alleycat.storage.paging import Page, query, start_of

UPCOMING, LIVE = "upcoming", "live"
STATES = (UPCOMING, LIVE, e.FINISHED)


def list_classes(limit: int, token: str | None) -> Page:
    return query("catalog:classes", token, [keys.CLASS_CARD], partition=keys.CLASS_CARD.pk.build({}),
                  limit=limit, forward=True)


def list_races(state: str, at: str, limit: int, token: str | None) -> Page:
    """Races in ``state`` at time ``at`` (the contract's form): upcoming soonest first, live and
    finished most recently started first. Later pages keep page 1's ``at`` (in their token), so
    a race that goes live meanwhile is neither skipped nor listed twice."""
    scope = f"catalog:races:{state}"
    partition = keys.RACE_CARD.pk.build({"status": e.FINISHED if state == e.FINISHED else e.OPEN})
    start = start_of(token, scope, {"PK": partition}, [keys.RACE_CARD], keys.RACE_CARD.sk.prefix())
    if state == e.FINISHED:
        return query(scope, token, [keys.RACE_CARD], partition=partition, limit=limit, start=start)
    carried = start.carry.get("at") if start else None
    at = carried if isinstance(carried, str) else at
    return query(scope, token, [keys.RACE_CARD], partition=partition, limit=limit, start=start, carry={"at": at},
                 condition="SK > :bound" if state == UPCOMING else "SK < :bound", forward=state == UPCOMING,
                 bound=keys.RACE_CARD.sk.past(startsAt=at))


# --- written with their class or race ------------------------------------------------

def metric_is(metric: str) -> str:
    """A condition that a class's metric is ``metric`` (``:metric``): a class from before v1.3 has none, output."""
    return "(metric = :metric" + (" OR attribute_not_exists(metric))" if metric == OUTPUT else ")")


def put_class_actions(klass: e.Class) -> list[dict]:
    """The class (its races' mark kept) and its card, for one transaction. The class's update holds only
    while its metric stays what it was or it has no race yet (``e.Class.hasRaces``)."""
    stored = {name: value for name, value in klass.to_item().items() if name not in ("PK", "SK", "hasRaces")}
    names = {f"#a{i}": name for i, name in enumerate(stored)}
    update = {"TableName": table_name(), "Key": key_of(klass),
              "UpdateExpression": "SET " + ", ".join(f"{name} = :a{i}" for i, name in enumerate(names)),
              "ConditionExpression": f"attribute_not_exists(hasRaces) OR {metric_is(klass.metric)}",
              "ExpressionAttributeNames": names,
              "ExpressionAttributeValues": {f":a{i}": value for i, value in enumerate(stored.values())}}
    update["ExpressionAttributeValues"][":metric"] = stored["metric"]
    return [{"Update": update}, {"Put": {"TableName": table_name(), "Item": e.ClassCard.of(klass).to_item()}}]


def finish_actions(race: e.Race) -> list[dict]:
    """The race's card moved from the open list to the finished one, for the finishing transaction."""
    return [{"Delete": {"TableName": table_name(), "Key": key_of(e.RaceCard.of(race, e.OPEN))}},
            {"Put": {"TableName": table_name(), "Item": e.RaceCard.of(race, e.FINISHED).to_item()}}]


# --- kept by the stream ----------------------------------------------------------------

def sync_race_card(race: e.Race) -> None:
    """Sets the card of ``race`` (as read now) to its racer count and class name.

    No card under the race's status means the race was finished since it was read (its card
    moved: the finish's own stream record syncs it again) or it predates the catalog: then the
    card is written only if the race still has that status, in one transaction.
    """
    card = e.RaceCard.of(race)
    if conditional("update_item", Key=key_of(card), UpdateExpression="SET racerCount = :count, className = :name",
                   ConditionExpression="attribute_exists(PK)",
                   ExpressionAttributeValues=values(count=race.racerCount, name=race.className)):
        return
    try:
        send("transact_write_items", TransactItems=[
            {"ConditionCheck": {"TableName": table_name(), "Key": key_of(race), "ConditionExpression": "#status = :status",
                                "ExpressionAttributeNames": {"#status": "status"},
                                "ExpressionAttributeValues": values(status=race.status)}},
            {"Put": {"TableName": table_name(), "Item": card.to_item()}}])
    except Cancelled as cancelled:
        if not cancelled.condition_failed(0):
            raise
