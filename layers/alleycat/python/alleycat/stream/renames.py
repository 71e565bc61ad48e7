"""Names that follow a rename: a class's to its races, a racer's to their entries and standings.

The names are read now (not taken from the record: an old record may come again).
"""

from __future__ import annotations

from alleycat.storage import classes, racers, races
from alleycat.storage import entities as e


def follow_class_name(race: e.Race) -> None:
    """A new race takes its class's name as it is now: a rename done a moment before or after
    the race was created may not have found it in the (eventually consistent) index."""
    klass = classes.get(race.classId, consistent=True)
    if klass is not None and klass.name != race.className:
        races.set_class_name(race, klass.name, was=race.className)


def rename_class(class_id: str) -> None:
    klass = classes.get(class_id, consistent=True)
    if klass is None:
        return
    for race in classes.all_races(class_id):
        races.set_class_name(race, klass.name)


def rename_racer(racer_id: str) -> None:
    racer = racers.get(racer_id, consistent=True)
    if racer is None:
        return
    for entry in racers.entries_of(racer_id):
        racers.set_name(entry, racer.name)
        races.set_standing_name(entry.raceId, racer_id, racer.name, entry.rostered)
    for best in racers.bests_of(racer_id):
        racers.set_name(best, racer.name)
        classes.set_standing_name(best.classId, racer_id, racer.name)
