"""Every key string of the table, declared once per entity as a template.

A template's placeholders are attribute names of the entity (``RACER#{racerId}``).
Building a key with a placeholder missing raises; a key parses back into its parts;
a template only ever parses keys it could have built, so one entity's key is never
taken for another's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

SEPARATOR = "#"
_PLACEHOLDER = re.compile(r"\{(\w+)(?::(\d+)d)?\}")
_PART = r"[^#]+"


class InvalidKey(ValueError):
    """A key could not be built or parsed from the given parts."""


@dataclass(frozen=True)
class KeyTemplate:
    """A key format such as ``HIST#{raceId}#{racerId}#{chunk:03d}``."""

    pattern: str
    fields: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", tuple(name for name, _width in _PLACEHOLDER.findall(self.pattern)))

    @property
    def _regex(self) -> re.Pattern:
        return _parser(self.pattern)

    def build(self, values: Mapping[str, Any]) -> str:
        parts = {}
        for name in self.fields:
            value = values.get(name)
            if value is None or value == "":
                raise InvalidKey(f"key {self.pattern} needs '{name}'")
            text = str(value)
            if SEPARATOR in text:
                raise InvalidKey(f"'{name}' may not contain '{SEPARATOR}'")
            parts[name] = value
        return self.pattern.format(**parts)

    def parse(self, key: object) -> dict[str, str]:
        match = self._regex.match(key) if isinstance(key, str) else None
        if not match:
            raise InvalidKey(f"{key!r} is not a key of the form {self.pattern}")
        return match.groupdict()

    def matches(self, key: str) -> bool:
        return isinstance(key, str) and self._regex.match(key) is not None

    def past(self, **values: Any) -> str:
        """The smallest string above every key that starts with ``prefix(**values)``: an upper
        bound for a sort-key range, e.g. every race card that starts at or before a time."""
        start = self.prefix(**values)
        if not start:
            raise InvalidKey(f"key {self.pattern} has no text before its first placeholder to bound")
        return start[:-1] + chr(ord(start[-1]) + 1)

    def prefix(self, **values: Any) -> str:
        """The key up to the first placeholder not given: for ``begins_with`` conditions."""
        out, pos = "", 0
        for match in _PLACEHOLDER.finditer(self.pattern):
            out += self.pattern[pos:match.start()]
            name = match.group(1)
            if name not in values:
                return out
            out += self.pattern[match.start():match.end()].format(**{name: values[name]})
            pos = match.end()
        return out + self.pattern[pos:]


@dataclass(frozen=True)
class EntityKeys:
    """The primary key (and so, inverted, the GSI key) of one entity."""

    entity: str
    pk: KeyTemplate
    sk: KeyTemplate

    def key(self, values: Mapping[str, Any]) -> dict[str, str]:
        return {"PK": self.pk.build(values), "SK": self.sk.build(values)}

    def parse(self, key: Mapping[str, object]) -> dict[str, str]:
        parts = self.pk.parse(key.get("PK"))
        for name, value in self.sk.parse(key.get("SK")).items():
            if parts.setdefault(name, value) != value:
                raise InvalidKey(f"PK and SK disagree on '{name}'")
        return parts


@cache
def _parser(pattern: str) -> re.Pattern:
    """The regex that parses keys of ``pattern``: compiled on first use, not at import (cold start)."""
    regex, pos = "", 0
    for match in _PLACEHOLDER.finditer(pattern):
        regex += re.escape(pattern[pos:match.start()])
        name, width = match.group(1), match.group(2)
        regex += rf"(?P<{name}>\d{{{width}}})" if width else rf"(?P<{name}>{_PART})"
        pos = match.end()
    return re.compile(f"^{regex}{re.escape(pattern[pos:])}$")


def _entity(entity: str, pk: str, sk: str) -> EntityKeys:
    return EntityKeys(entity, KeyTemplate(pk), KeyTemplate(sk))


RACER = _entity("Racer", "RACER#{racerId}", "RACER#{racerId}")
CLASS = _entity("Class", "CLASS#{classId}", "CLASS#{classId}")
CLASS_BOARD = _entity("ClassBoard", "CLASS#{classId}", "BOARD#{classId}")
RACE = _entity("Race", "RACE#{raceId}", "CLASS#{classId}")
RACE_GATE = _entity("RaceGate", "GATE#{raceId}#{copy:02d}", "GATE#{raceId}")
RACE_BOARD = _entity("RaceBoard", "RACE#{raceId}", "BOARD#{raceId}#{shard:02d}")
# Racers the stream saw join, one item a batch, after the race and before its replay: the board's Query reads them.
RACE_ROSTER = _entity("RaceRoster", "RACE#{raceId}", "JOINED#{raceId}#{batch}")
RACE_TICKER = _entity("RaceTicker", "TICK#{raceId}", "TICK#{raceId}")
# The fan-in (docs/fan-in.md): a race slice's second blocks, a partition per slice; and the slice's board, in the
# race's partition beside the board shards (before the rosters and the replay: the board's one Query reads it).
# Each fan-in sort key names its race and slice (or request): the inverted index's partition is the sort key, and a
# new item writes it, so no two races' (or slices') items of one second, tag or key share an index partition.
SECOND_BLOCK = _entity("SecondBlock", "SLICE#{raceId}#{slice:03d}", "SECOND#{raceId}#{slice:03d}#{second:04d}")
SLICE_BOARD = _entity("SliceBoard", "RACE#{raceId}", "BOARD#{raceId}#S{slice:03d}")
# A racer's tag in their slice (``rules.fanin.tags_of``), claimed by their join: no two racers of a slice share one.
SLICE_TAG = _entity("SliceTag", "SLICE#{raceId}#{slice:03d}", "TAG#{raceId}#{slice:03d}#{tag}")
# An HTTP telemetry request's Idempotency-Key through the fan-in, a partition a (race, caller, key): its body's digest.
TELEMETRY_REQUEST = _entity("TelemetryRequest", "TREQ#{raceId}#{request}", "TREQ#{raceId}#{request}")
ENTRY = _entity("Entry", "RACER#{racerId}", "RACE#{raceId}")
BEST = _entity("Best", "RACER#{racerId}", "BEST#{classId}")
BEST_PACE = _entity("BestPace", "CLASS#{classId}", "PACE#{classId}")
RACE_REQUEST = _entity("RaceRequest", "CLASS#{classId}", "REQUEST#{requestKey}")
CHUNK = _entity("Chunk", "RACER#{racerId}", "HIST#{raceId}#{racerId}#{chunk:03d}")
# The catalog: what people browse to find a class or a race, one partition per list. A race's
# card moves from the open list to the finished one when the race is finished.
CLASS_CARD = _entity("ClassCard", "CLASSES", "CARD#{classId}")
RACE_CARD = _entity("RaceCard", "RACES#{status}", "CARD#{startsAt}#{raceId}")
PACKED_CHUNK = _entity("PackedChunk", "RACER#{racerId}", "HIST#{raceId}#{racerId}#P{part:02d}")
# A settled race's replay (every racer's score at each step of the race), after the board in the race's
# partition: the race, its board and its replay are one Query.
REPLAY_PART = _entity("ReplayPart", "RACE#{raceId}", "REPLAY#{raceId}#{part:02d}")
# The reviews admins work through: one partition per review state, by when the ride was flagged or decided.
REVIEW = _entity("Review", "REVIEWS#{state}", "REVIEW#{at}#{raceId}#{racerId}")

ENTITIES = {e.entity: e for e in (RACER, CLASS, CLASS_BOARD, RACE, RACE_GATE, RACE_BOARD, RACE_ROSTER, RACE_REQUEST, ENTRY, BEST, CHUNK, PACKED_CHUNK,
                                  BEST_PACE, CLASS_CARD, RACE_CARD, RACE_TICKER, REVIEW, REPLAY_PART, SECOND_BLOCK, SLICE_BOARD, SLICE_TAG,
                                  TELEMETRY_REQUEST)}
