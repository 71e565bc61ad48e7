"""Settling a finished race: final ranks, class records, class board and packed history.

``settle(race_id)`` is a pure function of what is stored, so it is safe to run again: on a
redelivered stream record, when a sample lands after the race was finished, or when a POST
finish of a race not yet settled asks again (a settlement that failed past the stream's
retries is lost otherwise). Its last write marks the race settled. The history is packed
first (it makes every total exact), then the class board is written before ranks and bests,
so the class leaderboard shows the race soonest.
"""

from __future__ import annotations

from alleycat.rules import board
from alleycat.storage import classes, parallel, racers, races, reviews, sizing
from alleycat import clock
from alleycat.storage import entities as e
from alleycat.rules.fairplay import PENDING, broken_rules, counts_for_class, is_ranked
from alleycat.stream import decisions
from alleycat.stream.history import compact
from alleycat.stream.pacing import ClassPacer

CLASS_BOARD_MAX_BYTES = 350 * 1024  # under DynamoDB's 400 KB item limit


def settle(race_id: str) -> None:
    """The race's final ranks, bests, class board and packed history from what is stored. Reviews may land
    while it runs (a ride flagged as it is seen, an admin's decision): the entries are read again after
    compaction, and once more after the race is marked settled, when a review that changed since is
    applied as a decision on a settled race is (``decisions``); a decision that arrives later finds the
    race settled and applies itself."""
    race, boards = races.with_boards(race_id, consistent=True)
    if race is None or race.status != e.FINISHED:
        return
    roster = [racer_id for shard in boards for racer_id in shard.standings]
    parallel.map_all(lambda entry: compact(race, entry, check_ride), racers.get_entries(race_id, roster))
    entries = racers.get_entries(race_id, roster)
    parallel.map_all(reviews.refresh_score, [entry for entry in entries if entry.review])
    publish_ranks(race, entries)
    races.mark_settled(race)
    used = {entry.racerId: entry.review for entry in entries}
    changed = [entry.racerId for entry in racers.get_entries(race_id, roster) if entry.review != used.get(entry.racerId)]
    if changed:
        decisions.apply(race_id, changed)


def check_ride(entry: e.Entry, samples: dict) -> None:
    """The whole ride against the plausibility rules: at the latest at the finish, a ride that breaks
    one is put up for review (unless an admin decided it already); a pending ride's rules are widened
    by those the whole ride breaks."""
    if entry.review in (None, PENDING):
        rules = broken_rules(samples)
        if rules and entry.review is None:
            reviews.flag(entry, rules, clock.iso_ms(clock.now()))
        elif rules:
            reviews.add_rules(entry, rules)


def amend(race_id: str, racer_ids: list[str]) -> None:
    """Late chunk records of a settled race, done exactly and cheaply.

    The racers are compacted again (their totals come from the stored samples, so a stale
    record can never lower them); for those whose totals changed, the board, their best
    and the class board are raised, and only entries whose place moved are re-ranked.
    Before the race is settled the whole settlement runs again (it may be the one in flight).
    """
    race, boards = races.with_boards(race_id, consistent=True)
    if race is None or race.status != e.FINISHED:
        return
    if not race.settled:
        settle(race_id)
        return
    read = racers.get_entries(race_id, racer_ids)
    unreviewed = {entry.racerId for entry in read if entry.review is None}
    changed = [entry for entry in read if compact(race, entry, check_ride)]
    flagged = [entry.racerId for entry in read if entry.racerId in unreviewed and entry.review]
    if flagged:  # late seconds that break a rule: off the class board until an admin clears the ride
        decisions.apply(race_id, flagged)
    if not changed:
        return
    stored = board.Board.from_shards(boards)
    before = stored.places()
    after = stored.updated(board.Standing.of_entry(entry) for entry in changed).places()
    merge_into_class_board(race, changed)
    write_final_standings(race, changed)
    for racer_id, place in after.items():
        if before.get(racer_id) != place:
            racers.rank_entry(race.raceId, racer_id, place)
    pacer = ClassPacer(race.classId, len(changed))
    for entry in changed:
        raise_best(race, entry, pacer)


def publish_ranks(race: e.Race, entries: list[e.Entry]) -> list[e.Entry]:
    """Class board first (the class leaderboard shows the race soonest), then ranks, bests, board.
    A disqualified ride has no rank; only rides that count (``fairplay.counts_for_class``) reach the class."""
    entries = board.in_order(entries)
    merge_into_class_board(race, entries)
    pacer = ClassPacer(race.classId, sum(1 for entry in entries if _counts(entry)))

    def rank(ranked):
        place, entry = ranked
        racers.rank_entry(race.raceId, entry.racerId, place if is_ranked(entry.review) else None)
        raise_best(race, entry, pacer)

    parallel.map_all(rank, enumerate(entries, start=1))
    write_final_standings(race, entries)
    return entries


def _counts(entry: e.Entry) -> bool:
    return counts_for_class(entry.equipment, entry.review)


def raise_best(race: e.Race, entry: e.Entry, pacer: ClassPacer) -> None:
    if not _counts(entry):
        return
    pacer.wait()
    racers.raise_best(e.Best(entry.racerId, race.classId, entry.score, race.raceId, entry.name))


def write_final_standings(race: e.Race, entries: list[e.Entry]) -> None:
    for shard, standings in board.shards(map(board.Standing.of_entry, entries), e.RaceBoard.shard_of).items():
        races.set_standings(race.raceId, shard, standings)


def merge_into_class_board(race: e.Race, entries: list[e.Entry]) -> None:
    """Raises racers' bests on the class board (``board.ClassBoard.merged``); retried on a concurrent write."""
    def fits(standings: dict) -> bool:  # long names: keep the board an item DynamoDB accepts
        return sizing.item_size(e.ClassBoard(race.classId, standings).to_item()) <= CLASS_BOARD_MAX_BYTES

    bests = [board.ClassStanding(entry.racerId, entry.score, race.raceId, entry.name) for entry in entries
             if _counts(entry)]
    while True:
        stored = classes.get_board(race.classId)
        version = getattr(stored, "version", None) if stored else None
        merged = board.ClassBoard.from_item(stored).merged(bests, fits)
        if classes.put_board(e.ClassBoard(race.classId, merged.item()), version):
            return
