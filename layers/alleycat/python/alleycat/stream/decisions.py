"""A review reaching the race's board and ranks, the racer's result and best, and the class board: an
admin's decision (within the contract's 5 s: a stream record of the new review item starts it), or a
ride flagged after its race was settled.

Everything written is derived from what is stored now (the entries' reviews, the board's scores, the
racer's finished rides in the class), and the entries are read again afterwards: a review that changed
meanwhile (a second decision, on another stream shard) is applied again, so the last one stored wins
and a redelivered or late record changes nothing more.
"""

from __future__ import annotations

from alleycat.rules import board
from alleycat.rules import settlement as rule
from alleycat.storage import classes, parallel, racers, races
from alleycat.storage import entities as e

ATTEMPTS = 5


def apply(race_id: str, racer_ids: list[str]) -> bool:
    """The racers' reviews as stored, applied; True when a settled race's final board changed (its viewers read
    it again; an open race's board goes with its ticker's next message). A race finished but not yet settled is
    left to its settlement, which reads the reviews again once it has marked the race settled."""
    for _ in range(ATTEMPTS):
        race, boards = races.with_boards(race_id, consistent=True)
        if race is None or (race.status == e.FINISHED and not race.settled):
            return False
        reviews = {entry.racerId: entry.review for entry in racers.get_entries(race_id, racer_ids)}
        stored = board.Board.from_shards(boards)
        reviewed = rule.reviewed(stored, reviews)
        parallel.map_all(lambda standing: races.set_standing_review(race_id, standing), reviewed)
        if race.status == e.FINISHED:
            _rank(race, stored.updated(reviewed))
            for racer_id in reviews:
                set_class_best(race.classId, racer_id)
        if {entry.racerId: entry.review for entry in racers.get_entries(race_id, racer_ids)} == reviews:
            return race.status == e.FINISHED
    raise RuntimeError(f"reviews of race {race_id} kept changing: retried from the record")


def _rank(race: e.Race, standings: board.Board) -> None:
    """Every entry whose stored rank is not its place on the board (a disqualified ride has none)."""
    places = standings.places()
    for racer_id, place in rule.ranks_to_correct(places, racers.get_entries(race.raceId, list(places))).items():
        racers.rank_entry(race.raceId, racer_id, place)


def set_class_best(class_id: str, racer_id: str) -> None:
    """The racer's best in the class and their class board row, from their rides in the class that count
    now: in races finished (an entry not ranked yet is read as finished when its race is: its settlement
    may be merging it into the class board right now)."""
    mine = [entry for entry in racers.entries_of(racer_id) if entry.classId == class_id]
    finished = {entry.raceId for entry in mine if entry.raceStatus == e.FINISHED}
    finished |= {entry.raceId for entry in mine if entry.raceId not in finished
                 and getattr(races.get(entry.raceId, consistent=True), "status", None) == e.FINISHED}
    row = rule.class_best(mine, finished)
    racers.set_best(racer_id, class_id, e.Best(racer_id, class_id, row.best, row.race_id, row.name) if row else None)
    while True:
        stored = classes.get_board(class_id)
        version = getattr(stored, "version", None) if stored else None
        merged = board.ClassBoard.from_item(stored).with_best(racer_id, row)
        if classes.put_board(e.ClassBoard(class_id, merged.item()), version):
            return
