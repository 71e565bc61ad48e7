"""An admin's review decision reaching the race's board and ranks, the racer's result and best, and the
class board (within the contract's 5 s: a stream record of the new review item starts it).

What it writes is derived from what is stored now (the entries' reviews, their scores, the racer's
finished rides in the class), so a redelivered or late record changes nothing more.
"""

from __future__ import annotations

from .. import board, classes, parallel, racers, races
from .. import entities as e
from ..fairplay import counts_for_class
from . import settlement


def apply(race_id: str, racer_ids: list[str]) -> list[e.RaceBoard]:
    """The racers' reviews as stored, applied; the board shards written while the race is open (to push)."""
    race, boards = races.with_boards(race_id, consistent=True)
    if race is None:
        return []
    if race.status == e.FINISHED and not race.settled:
        settlement.settle(race_id)  # it reads the reviews as they are now
        return []
    entries = racers.get_entries(race_id, racer_ids)
    before = board.Board.from_shards(boards)
    reviewed = [standing for standing in (before.standings.get(entry.racerId) for entry in entries) if standing]
    reviews = {entry.racerId: entry.review for entry in entries}
    written = [shard for shard in parallel.map_all(lambda standing: races.set_standing_review(
        race_id, standing.racer_id, reviews[standing.racer_id]), reviewed) if shard is not None]
    if race.status != e.FINISHED:
        return written
    after = before.updated(_with_review(standing, reviews[standing.racer_id]) for standing in reviewed).places()
    for racer_id, place in before.places().items():
        if after.get(racer_id) != place:
            racers.rank_entry(race_id, racer_id, after.get(racer_id))
    for entry in entries:
        set_class_best(race.classId, entry.racerId)
    return []


def _with_review(standing: board.Standing, review: str | None) -> board.Standing:
    from dataclasses import replace

    return replace(standing, review=review)


def set_class_best(class_id: str, racer_id: str) -> None:
    """The racer's best in the class and their class board row, from their finished rides that count now."""
    counting = [entry for entry in racers.entries_of(racer_id)
                if entry.classId == class_id and entry.raceStatus == e.FINISHED
                and counts_for_class(entry.equipment, entry.review)]
    top = min(counting, key=lambda entry: board.order(entry.score, entry.raceId), default=None)
    racers.set_best(racer_id, class_id, e.Best(racer_id, class_id, top.score, top.raceId, top.name) if top else None)
    row = board.ClassStanding(racer_id, top.score, top.raceId, top.name) if top else None
    while True:
        stored = classes.get_board(class_id)
        version = getattr(stored, "version", None) if stored else None
        merged = board.ClassBoard.from_item(stored).with_best(racer_id, row)
        if classes.put_board(e.ClassBoard(class_id, merged.item()), version):
            return
