"""A batch's plan done, reaction by reaction; the sequence numbers of records whose work failed
(the event source mapping retries from the first)."""

from __future__ import annotations

from alleycat.flows import ending, pushing, ticking
from alleycat.observability import logger
from alleycat.storage import catalog, parallel, races
from alleycat.storage import entities as e
from alleycat.stream import decisions, joins, renames, scoring, settlement
from alleycat.stream.plan import Plan


def react(plan: Plan, publisher: pushing.Publisher | None) -> list[str]:
    late_joins: dict[str, list[str]] = {}  # joins rostered first: the board never shows a batch's seconds without its joins
    failed_joins: list[str] = []
    for race_id, joined in plan.joined.items():
        try:
            late_joins[race_id] = joins.roster(race_id, joined)  # joined before the finish, seen after it
        except Exception:  # noqa: BLE001 - retried from its first record
            logger.exception("rostering joins failed")
            failed_joins.append(min(joined.values(), key=int))
    scored = scoring.score(plan.chunks, plan.first_seen)
    failed = scored.failed + failed_joins
    for race_id, racer_ids in late_joins.items():
        for racer_id in racer_ids:
            scored.late[race_id].setdefault(racer_id, plan.joined[race_id][racer_id])
    final_boards_changed = []
    for race_id, decided in plan.decided.items():
        try:
            settled = decisions.apply(race_id, sorted(decided))
        except Exception:  # noqa: BLE001 - retried from its first record
            logger.exception("review decision failed")
            failed.append(min(decided.values(), key=int))
            continue
        if settled:
            final_boards_changed.append(race_id)
    for race_id in final_boards_changed:  # as after its settlement: viewers read the final board again
        pushing.push_settled(publisher, race_id)
    for race_id, sequence in plan.finished.items():  # its ticker tells viewers too, at its next tick
        if _failed(settlement.settle, race_id):
            failed.append(sequence)
        else:
            pushing.push_settled(publisher, race_id)
    for race_id, late in scored.late.items():
        if race_id not in plan.finished and _failed(settlement.amend, race_id, sorted(late)):
            failed.append(min(late.values(), key=int))
    for class_id, sequence in plan.renamed_classes.items():
        if _failed(renames.rename_class, class_id):
            failed.append(sequence)
    for race_id, outcome in parallel.outcomes(lambda _, created: start_race(created[0]), plan.created).items():
        if parallel.failed(outcome):
            logger.error("new race's work failed", exc_info=outcome, extra={"raceId": race_id})
            failed.append(plan.created[race_id][1])
    for race_id, outcome in parallel.outcomes(lambda race_id, _: sync_card(race_id), plan.carded).items():
        if parallel.failed(outcome):
            logger.error("race card sync failed", exc_info=outcome, extra={"raceId": race_id})
            failed.append(plan.carded[race_id])
    for racer_id, sequence in plan.renamed_racers.items():
        if _failed(renames.rename_racer, racer_id):
            failed.append(sequence)
    return failed


def start_race(race: e.Race) -> None:
    """A new race takes its class's name as it is now, and its finisher (``ending``) and ticker (``ticking``) are started."""
    renames.follow_class_name(race)
    if ending.enabled():
        ending.start(race.raceId)
    if ticking.enabled():
        ticking.start(race.raceId)


def sync_card(race_id: str) -> None:
    """The race's catalog card takes the race's racer count and class name as they are now."""
    race = races.get(race_id, consistent=True)
    if race is not None:
        catalog.sync_race_card(race)


def _failed(work, *arguments) -> bool:
    try:
        work(*arguments)
        return False
    except Exception:  # noqa: BLE001 - reported to the event source mapping, which retries from this record
        logger.exception("stream work failed")
        return True
