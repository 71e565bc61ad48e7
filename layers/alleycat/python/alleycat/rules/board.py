"""The race board and the class board: the one place standings are ranked and ordered.

A race's live board is stored in shards (``RaceBoard`` items), each a map racerId ->
``[score, lastSecond, name, equipment, review]``; a class's all-time board is one ``ClassBoard``
item, a map racerId -> ``[bestScore, raceId, name]``. Here those lists become records
(``Standing``, ``ClassStanding``), converted at the storage edge by ``stored``/``item``.

Both boards rank the same way: score descending, then racerId ascending (``order``); on a race's
board a disqualified ride has no rank and comes last (``fairplay.is_ranked``). The frontend's twin
is ``byBoardOrder`` in ``frontend/src/push.js``; a test holds them together.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from decimal import Decimal

from alleycat.rules.fairplay import BIKE, REAL, is_ranked
from alleycat.rules.scores import number

CLASS_BOARD_SIZE = 1000
NAME_INDEX = 2  # the name's place in a stored standing, either board's (a rename sets it in place)
EQUIPMENT_INDEX, REVIEW_INDEX = 3, 4  # their places in a race board's stored standing (set in place too)
TRIM_STEP = 10  # rows dropped at a time from a class board too big to store


def order(score, racer_id: str) -> tuple:
    """The boards' order as a sort key: score descending, then racerId."""
    return -score, racer_id


@dataclass(frozen=True, slots=True)
class Standing:
    """A racer's row on a race's board."""

    racer_id: str
    score: Decimal
    last_second: int | None
    name: str
    equipment: str = BIKE
    review: str | None = None

    @classmethod
    def stored(cls, racer_id: str, value: list) -> Standing:
        score, last_second, name, *rest = value  # boards of races before v1.2: the first three alone
        equipment, review = (list(rest) + [BIKE, None])[:2]
        return cls(racer_id, Decimal(score), last_second, name, equipment, review)

    @classmethod
    def of_entry(cls, entry) -> Standing:
        return cls(entry.racerId, entry.score, entry.lastSecond, entry.name, entry.equipment, entry.review)

    @classmethod
    def joined(cls, racer_id: str, name: str, equipment: str = BIKE) -> Standing:
        """A racer who joined and has no second yet."""
        return cls(racer_id, Decimal(0), None, name, equipment)

    def item(self) -> list:
        """As stored: ``[score, lastSecond, name, equipment, review]``."""
        return [self.score, self.last_second, self.name, self.equipment, self.review]

    @property
    def ranked(self) -> bool:
        return is_ranked(self.review)

    def key(self) -> tuple:
        return (not self.ranked, *order(self.score, self.racer_id))


@dataclass(frozen=True, slots=True)
class ClassStanding:
    """A racer's row on a class's board: their best score and the race it was set in."""

    racer_id: str
    best: Decimal
    race_id: str
    name: str

    @classmethod
    def stored(cls, racer_id: str, value: list) -> ClassStanding:
        best, race_id, name = value
        return cls(racer_id, Decimal(best), race_id, name)

    def item(self) -> list:
        """As stored: ``[bestScore, raceId, name]``."""
        return [self.best, self.race_id, self.name]

    def key(self) -> tuple:
        return order(self.best, self.racer_id)


def in_order(entries: Iterable) -> list:
    """Entries (anything with ``score``, ``racerId`` and ``review``) in the boards' order, disqualified last."""
    return sorted(entries, key=lambda entry: (not is_ranked(entry.review), *order(entry.score, entry.racerId)))


def _ranked(standings: Iterable) -> list:
    return sorted(standings, key=lambda standing: standing.key())


def _wire_bytes(value) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


class Board:
    """A race's board: every racer's ``Standing``, ranked on demand."""

    def __init__(self, standings: Iterable[Standing] = ()):
        self.standings: dict[str, Standing] = {standing.racer_id: standing for standing in standings}
        self._ranked: list[Standing] | None = None

    @classmethod
    def from_shards(cls, shards: Iterable) -> Board:
        """From the race's ``RaceBoard`` items as stored."""
        return cls(Standing.stored(racer_id, value) for shard in shards for racer_id, value in shard.standings.items())

    def __len__(self) -> int:
        return len(self.standings)

    def updated(self, standings: Iterable[Standing]) -> Board:
        """This board with ``standings`` set (added or replaced)."""
        board = Board(self.standings.values())
        board.standings.update((standing.racer_id, standing) for standing in standings)
        return board

    def real_only(self) -> Board:
        """The rides on real equipment alone (``?equipment=real``)."""
        return Board(standing for standing in self.standings.values() if standing.equipment in REAL)

    def ranked(self) -> list[Standing]:
        """Every standing in board order (score descending, then racerId; disqualified rides last)."""
        if self._ranked is None:
            self._ranked = _ranked(self.standings.values())
        return self._ranked

    def places(self) -> dict[str, int | None]:
        """racerId -> rank (1 = first; None for a disqualified ride)."""
        return {standing.racer_id: rank for rank, standing in self.page(len(self.standings))}

    def page(self, limit: int) -> list[tuple[int | None, Standing]]:
        """The first ``limit`` (rank, standing): ranks count the ranked rides, a disqualified one has None."""
        return [(place if standing.ranked else None, standing)
                for place, standing in enumerate(self.ranked()[:limit], start=1)]

    def delta(self, changed: Iterable[str], max_bytes: int, top: int) -> tuple[list[list], int]:
        """Rows ``[rank, racerId, score, lastSecond, equipment, review]`` in board order, the name appended
        for the top ``top`` rows: the top rows always, then the ``changed`` racers ranked below them, while
        the rows (as compact JSON, a comma each) take at most ``max_bytes``; and how many changed racers
        were left out (all ranked below every row given)."""
        changed = set(changed)
        wanted = [(place, rank, standing) for place, (rank, standing) in enumerate(self.page(len(self.standings)), start=1)
                  if place <= top or standing.racer_id in changed]
        rows: list[list] = []
        size = 0
        for index, (place, rank, standing) in enumerate(wanted):
            row = [rank, standing.racer_id, number(standing.score), standing.last_second, standing.equipment,
                   standing.review] + ([standing.name] if place <= top else [])
            cost = _wire_bytes(row) + 1  # and its comma
            if size + cost > max_bytes:
                return rows, sum(1 for _, _, left in wanted[index:] if left.racer_id in changed)
            rows.append(row)
            size += cost
        return rows, 0


def shards(standings: Iterable[Standing], shard_of: Callable[[str], int]) -> dict[int, dict[str, Standing]]:
    """shard -> {racerId: standing}, in the order given."""
    by_shard: dict[int, dict[str, Standing]] = {}
    for standing in standings:
        by_shard.setdefault(shard_of(standing.racer_id), {})[standing.racer_id] = standing
    return by_shard


class ClassBoard:
    """A class's all-time board: each racer's best ``ClassStanding``, the top ``CLASS_BOARD_SIZE`` kept."""

    def __init__(self, standings: Iterable[ClassStanding] = ()):
        self.standings: dict[str, ClassStanding] = {standing.racer_id: standing for standing in standings}

    @classmethod
    def from_item(cls, board) -> ClassBoard:
        """From the ``ClassBoard`` item as stored (None: an empty board)."""
        return cls(ClassStanding.stored(racer_id, value)
                   for racer_id, value in (board.standings if board is not None else {}).items())

    def ranked(self) -> list[ClassStanding]:
        return _ranked(self.standings.values())

    def page(self, limit: int) -> list[tuple[int, ClassStanding]]:
        return list(enumerate(self.ranked()[:limit], start=1))

    def item(self) -> dict[str, list]:
        """The standings as stored (a merged board holds them in rank order)."""
        return {standing.racer_id: standing.item() for standing in self.standings.values()}

    def with_best(self, racer_id: str, best: ClassStanding | None) -> ClassBoard:
        """This board with the racer's row set to ``best`` (None: removed), whatever it held: a review's
        decision may lower a best. (A row removed from a full board leaves it one short until the
        next settlement of the class brings more rows.)"""
        standings = {held.racer_id: held for held in self.standings.values() if held.racer_id != racer_id}
        if best is not None:
            standings[racer_id] = best
        return ClassBoard(_ranked(standings.values())[:CLASS_BOARD_SIZE])

    def merged(self, bests: Iterable[ClassStanding], fits: Callable[[dict], bool] = lambda item: True,
               size: int = CLASS_BOARD_SIZE) -> ClassBoard:
        """This board with each best that beats the racer's (or is their first), cut to the top ``size``
        and then, ``TRIM_STEP`` rows at a time, until ``fits`` accepts its stored standings. A best
        that does not beat the racer's still brings their name as it is now: a rename whose work ran
        before this racer had a best in the class found no row of theirs to rename."""
        standings = dict(self.standings)
        for best in bests:
            held = standings.get(best.racer_id)
            if held is None or held.best < best.best:
                standings[best.racer_id] = best
            elif held.name != best.name:
                standings[best.racer_id] = replace(held, name=best.name)
        top = _ranked(standings.values())[:size]
        while not fits(ClassBoard(top).item()):
            top = top[:-TRIM_STEP]  # long names: keep the board an item DynamoDB accepts
        return ClassBoard(top)
