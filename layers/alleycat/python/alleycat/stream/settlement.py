"""Settling a finished race: final ranks, class records, class board, packed history and replay.

``settle(race_id)`` is a pure function of what is stored, so it is safe to run again: on a
redelivered stream record, when a sample lands after the race was finished, or when a POST
finish of a race not yet settled asks again (a settlement that failed past the stream's
retries is lost otherwise). Its last write marks the race settled. The history is packed
first (it makes every total exact, and reads every ride the replay is made of), then the class
board is written before ranks and bests, so the class leaderboard shows the race soonest; the
replay last, before the race is marked settled (its route answers 409 until then).
"""

from __future__ import annotations

from alleycat import clock, settings
from alleycat.rules import board, replay
from alleycat.rules import settlement as rule
from alleycat.rules.samples import Seconds
from alleycat.storage import classes, parallel, racers, races, replays, reviews, sizing
from alleycat.storage import entities as e
from alleycat.stream import decisions
from alleycat.stream.history import WithBlocks, compact
from alleycat.stream.pacing import ClassPacer

CLASS_BOARD_MAX_BYTES = 350 * 1024  # under DynamoDB's 400 KB item limit


def settle(race_id: str) -> None:
    """The race's final ranks, bests, class board and packed history from what is stored. Reviews may land
    while it runs (a ride flagged as it is seen, an admin's decision): the entries are read again after
    compaction, and once more after the race is marked settled, when a review that changed since is
    applied as a decision on a settled race is (``decisions``); a decision that arrives later finds the
    race settled and applies itself."""
    race, shards, rosters, _ = races.board_items(race_id, consistent=True)
    if race is None or race.status != e.FINISHED:
        return
    boards = races.with_rosters(race_id, shards, rosters)
    roster = [racer_id for shard in boards for racer_id in shard.standings]
    ridden = racers.get_entries(race_id, roster)
    blocked = _block_seconds(race, ridden)
    rides = parallel.map_all(lambda entry: compact(race, entry, check_ride, WithBlocks(blocked[entry.racerId])
                                                   if entry.racerId in blocked else racers), ridden)
    entries = racers.get_entries(race_id, roster)
    parallel.map_all(reviews.refresh_score, [entry for entry in entries if entry.review])
    publish_ranks(race, entries)
    replays.write(e.ReplayPart.split(race.raceId, replay.step_of(race.durationSeconds), {
        entry.racerId: replay.cumulative_tenths(ride.samples, race.durationSeconds, race.metric) for entry, ride in zip(ridden, rides, strict=True)}))
    races.drop_rosters(rosters)  # every racer they name has a final standing now
    races.mark_settled(race)
    used = {entry.racerId: entry.review for entry in entries}
    changed = [entry.racerId for entry in racers.get_entries(race_id, roster) if entry.review != used.get(entry.racerId)]
    if changed:
        decisions.apply(race_id, changed)
    # An earlier attempt that failed after merging the class board may have merged a ride reviewed since: its row goes.
    for racer_id in [entry.racerId for entry in entries if entry.review and not rule.counts(entry)]:
        decisions.set_class_best(race.classId, racer_id)


def _block_seconds(race: e.Race, entries: list[e.Entry]) -> dict[str, Seconds]:
    """With the fan-in on, the tagged ``entries``' seconds from their slices' blocks (racerId -> seconds): one Query
    per slice that holds one of them (paged), the race's seconds alone; none without it."""
    if not (settings.load().fan_in and race.slices):
        return {}
    from alleycat.rules import fanin  # the fan-in's alone
    from alleycat.storage import blocks

    slices = race.slices
    by_slice: dict[int, dict[str, str]] = {}
    for entry in entries:
        if entry.tag is not None:
            by_slice.setdefault(fanin.slice_of(entry.racerId, slices), {})[entry.tag] = entry.racerId
    found: dict[str, Seconds] = {}
    for seconds in parallel.map_all(lambda item: blocks.seconds_of(race.raceId, item[0], item[1], race.durationSeconds),
                                    by_slice.items()):
        found.update(seconds)
    return found


def check_ride(entry: e.Entry, samples: dict) -> None:
    """The whole ride against the plausibility rules, at the latest at the finish (``rule.review_at_finish``)."""
    change = rule.review_at_finish(entry.review, samples, entry.metric)
    if isinstance(change, rule.Flag):
        reviews.flag(entry, change.rules, clock.iso_ms(clock.now()))
    elif isinstance(change, rule.AddRules):
        reviews.add_rules(entry, change.rules)


def amend(race_id: str, racer_ids: list[str]) -> None:
    """Late chunk records of a settled race, done exactly and cheaply.

    The racers are compacted again (their totals come from the stored samples, so a stale
    record can never lower them); for those whose totals changed, their replay rows are written
    again, the board, their best and the class board are raised, and only entries whose place
    moved are re-ranked.
    Before the race is settled the whole settlement runs again (it may be the one in flight).
    """
    race, boards, _, _ = races.board_items(race_id, consistent=True)
    if race is None or race.status != e.FINISHED:
        return
    if not race.settled:
        settle(race_id)
        return
    read = racers.get_entries(race_id, racer_ids)
    unreviewed = {entry.racerId for entry in read if entry.review is None}
    rides = {entry.racerId: compact(race, entry, check_ride) for entry in read}
    # a racer the settlement did not rank joined before the finish and was rostered after it
    changed = [entry for entry in read if rides[entry.racerId].changed or entry.raceStatus != e.FINISHED]
    flagged = [entry.racerId for entry in read if entry.racerId in unreviewed and entry.review]
    if flagged:  # late seconds that break a rule: off the class board until an admin clears the ride
        decisions.apply(race_id, flagged)
    if not changed:
        return
    standings = board.Board.from_shards(boards)
    moved = rule.places_moved(standings, map(board.Standing.of_entry, changed))
    replays.set_rows(race.raceId, len(standings), {
        entry.racerId: replay.cumulative_tenths(rides[entry.racerId].samples, race.durationSeconds, race.metric) for entry in changed})
    merge_into_class_board(race, changed)
    write_final_standings(race, changed)
    for racer_id, place in moved.items():
        racers.rank_entry(race.raceId, racer_id, place)
    pacer = ClassPacer(race.classId, len(changed))
    for entry in changed:
        raise_best(race, entry, pacer)


def publish_ranks(race: e.Race, entries: list[e.Entry]) -> list[e.Entry]:
    """Class board first (the class leaderboard shows the race soonest), then ranks, bests, board
    (``rule.final_ranks``, ``rule.class_rows``)."""
    ranked = rule.final_ranks(entries)
    entries = [entry for _, entry in ranked]
    merge_into_class_board(race, entries)
    pacer = ClassPacer(race.classId, len(rule.class_rows(race.raceId, entries)))

    def rank(placed):
        place, entry = placed
        racers.rank_entry(race.raceId, entry.racerId, place)
        raise_best(race, entry, pacer)

    parallel.map_all(rank, ranked)
    write_final_standings(race, entries)
    return entries


def raise_best(race: e.Race, entry: e.Entry, pacer: ClassPacer) -> None:
    row = rule.class_row(race.raceId, entry)
    if row is None:
        return
    pacer.wait()
    racers.raise_best(e.Best(row.racer_id, race.classId, row.best, row.race_id, row.name))


def write_final_standings(race: e.Race, entries: list[e.Entry]) -> None:
    for shard, standings in board.shards(map(board.Standing.of_entry, entries), e.RaceBoard.shard_of).items():
        races.set_standings(race.raceId, shard, standings)


def merge_into_class_board(race: e.Race, entries: list[e.Entry]) -> None:
    """Raises racers' bests on the class board (``board.ClassBoard.merged``); retried on a concurrent write."""
    def fits(standings: dict) -> bool:  # long names: keep the board an item DynamoDB accepts
        return sizing.item_size(e.ClassBoard(race.classId, standings).to_item()) <= CLASS_BOARD_MAX_BYTES

    bests = rule.class_rows(race.raceId, entries)
    while True:
        stored = classes.get_board(race.classId)
        version = getattr(stored, "version", None) if stored else None
        merged = board.ClassBoard.from_item(stored).merged(bests, fits)
        if classes.put_board(e.ClassBoard(race.classId, merged.item()), version):
            return
