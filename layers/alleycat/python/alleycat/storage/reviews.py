"""Reviews of rides (Fair play): a ride flagged by the plausibility rules waits as ``pending`` until an
admin clears or disqualifies it. Each review is one ``Review`` item in its state's partition
(``REVIEWS#<state>``, by when it was flagged or decided), and the racer's entry names its state:
both are written in one transaction, so the list and the ride never disagree. ``GET /reviews`` is
one Query a page of a partition.
"""

from __future__ import annotations

from alleycat.errors import Conflict
from alleycat.rules.fairplay import PENDING
from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.dynamo import Cancelled, conditional, key_of, send, table_name, values
from alleycat.storage.paging import Page, query

ATTEMPTS = 5


def list_reviews(state: str, limit: int, token: str | None) -> Page:
    """Reviews in ``state``: oldest first while pending, newest decision first once decided."""
    return query(f"reviews:{state}", token, [keys.REVIEW], partition=keys.REVIEW.pk.build({"state": state}),
                 limit=limit, forward=state == PENDING)


def _written(actions: list[dict]) -> bool:
    """One transaction: True when written, False when one of its conditions was not met."""
    try:
        send("transact_write_items", TransactItems=actions)
        return True
    except Cancelled as cancelled:
        if not cancelled.condition_failed():
            raise
        return False


def flag(entry: e.Entry, rules: list[str], at: str) -> bool:
    """Puts the ride up for review (``pending``) for breaking ``rules``, unless it has a review already
    (flagged before, or decided: an admin's decision stands). True when this call flagged it; the
    entry then says so."""
    flagged = e.Entry(**{**entry.__dict__, "review": PENDING, "rules": list(rules), "reviewedAt": at})
    if not _written([
            {"Update": {"TableName": table_name(), "Key": key_of(entry),
                        "UpdateExpression": "SET review = :pending, #rules = :rules, reviewedAt = :at",
                        "ConditionExpression": "attribute_exists(PK) AND attribute_not_exists(review)",
                        "ExpressionAttributeNames": {"#rules": "rules"},
                        "ExpressionAttributeValues": values(pending=PENDING, rules=list(rules), at=at)}},
            {"Put": {"TableName": table_name(), "Item": e.Review.of(flagged, PENDING, at).to_item()}}]):
        return False
    entry.review, entry.rules, entry.reviewedAt = PENDING, list(rules), at
    return True


def add_rules(entry: e.Entry, rules: list[str]) -> None:
    """A pending ride's rules, widened by those the whole ride breaks (checked again at the finish); a
    ride decided meanwhile keeps its decision as it is."""
    wider = list(dict.fromkeys([*entry.rules, *rules]))
    if entry.review != PENDING or not entry.reviewedAt or wider == list(entry.rules):
        return
    if _written([
            {"Update": {"TableName": table_name(), "Key": key_of(entry), "UpdateExpression": "SET #rules = :rules",
                        "ConditionExpression": "review = :pending AND reviewedAt = :at",
                        "ExpressionAttributeNames": {"#rules": "rules"},
                        "ExpressionAttributeValues": values(rules=wider, pending=PENDING, at=entry.reviewedAt)}},
            {"Update": {"TableName": table_name(), "Key": key_of(e.Review.of(entry, PENDING, entry.reviewedAt)),
                        "UpdateExpression": "SET #rules = :rules", "ConditionExpression": "attribute_exists(PK)",
                        "ExpressionAttributeNames": {"#rules": "rules"}, "ExpressionAttributeValues": values(rules=wider)}}]):
        entry.rules = wider


def refresh_score(entry: e.Entry) -> None:
    """The entry's review, as listed, takes the entry's score now (a ride flagged while it went on)."""
    if entry.review and entry.reviewedAt:
        conditional("update_item", Key=key_of(e.Review.of(entry, entry.review, entry.reviewedAt)),
                    UpdateExpression="SET score = :score", ConditionExpression="attribute_exists(PK)",
                    ExpressionAttributeValues=values(score=entry.score))


def decide(entry: e.Entry, state: str, note: str, at: str, reread) -> e.Review:
    """The admin's decision on the ride (``cleared`` or ``disqualified``): the same decision again changes
    nothing, another replaces it. The entry's review and its listed item move together; retried when
    the ride was flagged or decided meanwhile (``reread`` reads the entry again)."""
    for _ in range(ATTEMPTS):
        if entry.review == state:
            return e.Review.of(entry, state, entry.reviewedAt or at)
        was = entry.review
        decided = e.Entry(**{**entry.__dict__, "review": state, "note": note, "reviewedAt": at})
        review = e.Review.of(decided, state, at)
        held = "review = :was" if was else "attribute_not_exists(review)"
        actions = [
            {"Update": {"TableName": table_name(), "Key": key_of(entry),
                        "UpdateExpression": "SET review = :state, note = :note, reviewedAt = :at",
                        "ConditionExpression": f"attribute_exists(PK) AND {held}",
                        "ExpressionAttributeValues": values(state=state, note=note, at=at, **({"was": was} if was else {}))}},
            {"Put": {"TableName": table_name(), "Item": review.to_item()}}]
        if was and entry.reviewedAt:
            actions.append({"Delete": {"TableName": table_name(),
                                       "Key": key_of(e.Review.of(entry, was, entry.reviewedAt))}})
        if _written(actions):
            return review
        entry = reread()
        if entry is None:
            break
    raise Conflict("the ride's review kept changing: try again")
