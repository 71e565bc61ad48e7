"""Joins, counted and shown: a join writes only the racer's own items (``races.join``); the stream puts a
batch's joiners of a race on one roster and adds them to the race's ``racerCount`` in one transaction
(``races.add_roster``), so a mass start's 500 joins a second are a few writes a second on the race's partition.

A join the stream sees after the race was finished (its record came behind the finish's, from another
shard) is left to ``settlement.amend``, which gives the racer a final standing and place.
"""

from __future__ import annotations

from alleycat.storage import entities as e
from alleycat.storage import racers, races

# A transaction holds at most 100 actions: the roster, the race's count and a mark on each entry.
ROSTER_PER_WRITE = 98


def roster(race_id: str, joined: dict[str, str]) -> list[str]:
    """Rosters the racers ``joined`` (racerId -> their join record's sequence number) not rostered yet, and
    counts them; returns those of them the race's settlement may have missed (the race is finished)."""
    entries = racers.get_entries(race_id, sorted(joined))
    fresh = sorted((entry for entry in entries if not entry.rostered), key=lambda entry: int(joined[entry.racerId]))
    for start in range(0, len(fresh), ROSTER_PER_WRITE):
        group = fresh[start:start + ROSTER_PER_WRITE]
        races.add_roster(race_id, joined[group[0].racerId], group)
    unranked = [entry.racerId for entry in entries if entry.raceStatus != e.FINISHED]
    if not unranked:
        return []
    race = races.get(race_id, consistent=True)  # after the roster: a settlement that starts later reads it
    return unranked if race is not None and race.status == e.FINISHED else []
