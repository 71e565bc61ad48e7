"""The catalog: the lists people browse to find a class or a race, one partition per list.

``CLASSES`` holds a card per class, by classId. ``RACES#open`` and ``RACES#finished`` hold a card
per race, by start time: a race's state (upcoming, live, finished) is its list and its start
against the clock, so a race goes live with no write. Cards are written in the transactions that
create a class or race and finish a race; the stream keeps a card's racer count and class name
those of its race (``sync_race_card``). Every list page is one Query.
"""

from __future__ import annotations

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

def put_class_actions(klass: e.Class) -> list[dict]:
    """The class and its card, for one transaction."""
    return [{"Put": {"TableName": table_name(), "Item": item.to_item()}} for item in (klass, e.ClassCard.of(klass))]


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
