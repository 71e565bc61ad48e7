"""A finished race's results, and a review's effect on them, as values: final ranks, the rides that count
for the class, their class board rows (each also the racer's best in the class), the ranks an amendment or
a decision moves, and what the whole ride's plausibility check does to its review.

``stream.settlement`` and ``stream.decisions`` read, call these and write. An entry here is anything with
``racerId``, ``score``, ``lastSecond``, ``name``, ``equipment``, ``review`` (and ``rank``, ``raceId`` where said).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from alleycat.rules.board import Board, ClassStanding, Standing, in_order, order
from alleycat.rules.fairplay import PENDING, broken_rules, counts_for_class, is_ranked
from alleycat.rules.samples import OUTPUT, Seconds


def final_ranks[Entry](entries: Iterable[Entry]) -> list[tuple[int | None, Entry]]:
    """(rank, entry) in board order: 1 for the highest score, ties by racerId; a disqualified ride is last
    and has no rank."""
    return [(place if is_ranked(entry.review) else None, entry) for place, entry in enumerate(in_order(entries), start=1)]


def counts(entry) -> bool:
    """Whether the ride may be the racer's best in its class: it has a second (a racer who joined and never
    rode is on the race's board, with 0, and on no class board) and ``fairplay.counts_for_class``."""
    return entry.lastSecond is not None and counts_for_class(entry.equipment, entry.review)


def class_row(race_id: str, entry) -> ClassStanding | None:
    """The ride's row on its class board, the racer's best in the class if it beats theirs; None for a ride
    that does not count."""
    return ClassStanding(entry.racerId, entry.score, race_id, entry.name) if counts(entry) else None


def class_rows(race_id: str, entries: Iterable) -> list[ClassStanding]:
    """The class board rows of the race's rides that count, in the order given."""
    return [row for row in (class_row(race_id, entry) for entry in entries) if row is not None]


def places_moved(board: Board, changed: Iterable[Standing]) -> dict[str, int | None]:
    """racerId -> place, for every racer whose place on ``board`` the ``changed`` standings move, in board order."""
    before, after = board.places(), board.updated(changed).places()
    return {racer_id: place for racer_id, place in after.items() if before.get(racer_id) != place}


def reviewed(board: Board, reviews: Mapping[str, str | None]) -> list[Standing]:
    """The board's standings of the racers in ``reviews`` (racerId -> review as stored), with that review."""
    return [replace(board.standings[racer_id], review=review)
            for racer_id, review in reviews.items() if racer_id in board.standings]


def ranks_to_correct(places: Mapping[str, int | None], entries: Iterable) -> dict[str, int | None]:
    """racerId -> place, for the entries whose stored ``rank`` is not their place (``places``)."""
    return {entry.racerId: places[entry.racerId] for entry in entries if entry.rank != places[entry.racerId]}


def class_best(rides: Iterable, finished: Collection[str]) -> ClassStanding | None:
    """A racer's best in a class from their rides in it (entries with ``raceId``): the highest score of a ride
    that counts in a race ``finished`` (raceIds); the earliest race's on a tie."""
    top = min((ride for ride in rides if ride.raceId in finished and counts(ride)),
              key=lambda ride: order(ride.score, ride.raceId), default=None)
    return ClassStanding(top.racerId, top.score, top.raceId, top.name) if top else None


@dataclass(frozen=True, slots=True)
class Flag:
    """Put the ride up for review for ``rules``."""

    rules: list[str]


@dataclass(frozen=True, slots=True)
class AddRules:
    """Widen the ride's pending review by ``rules``."""

    rules: list[str]


def review_at_finish(review: str | None, samples: Seconds, metric: str = OUTPUT) -> Flag | AddRules | None:
    """The whole ride's samples against the plausibility rules: a ride that breaks one
    is flagged, a pending one has its rules widened by those the whole ride breaks; a ride an admin decided
    already, or that breaks none, is left as it is (None)."""
    if review not in (None, PENDING):
        return None
    rules = broken_rules(samples, metric)
    if not rules:
        return None
    return Flag(rules) if review is None else AddRules(rules)
