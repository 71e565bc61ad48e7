"""The table's entities and their mapping to and from stored items, in one place.

Every item carries ``type``, the discriminator that turns any Query over a partition
into typed objects (``from_item``). Keys come from ``keys``; API shapes from ``views``.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import struct
import zlib
from dataclasses import dataclass, field, fields
from decimal import Decimal
from typing import ClassVar, Self

from alleycat.rules.fanin import TAG_CHARS, Counted, SliceStanding
from alleycat.rules.samples import CHUNK_SECONDS, OUTPUT, Sample, Seconds, Totals
from alleycat.storage import keys
from alleycat.storage.attributes import from_item as _load
from alleycat.storage.attributes import to_item as _dump

TYPE = "type"
OPEN, FINISHED = "open", "finished"
BOARD_SHARDS = 20  # ~50 racers a shard in a 1,000-racer race: small writes, short expressions
GATE_COPIES = 10  # 1,000 bikes posting each second read each copy 100 times a second


@dataclass
class Entity:
    KEYS: ClassVar[keys.EntityKeys]

    @property
    def key(self) -> dict[str, str]:
        return self.KEYS.key({name: getattr(self, name) for name in self.KEYS.pk.fields + self.KEYS.sk.fields})

    def to_item(self) -> dict:
        values = self.stored_values()
        return _dump({**self.KEYS.key(values), TYPE: self.KEYS.entity, **values})

    def stored_values(self) -> dict:
        """The entity's fields as its item holds them (before attribute encoding)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_values(cls, values: dict) -> Self:
        return cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values})


@dataclass
class Racer(Entity):
    KEYS = keys.RACER
    racerId: str
    name: str


@dataclass
class ClassFacts(Entity):
    """What a class is, as its item and its catalog card both hold it."""

    classId: str
    name: str
    description: str = ""
    metric: str = OUTPUT  # what its racers' scores add up (``rules.samples``): absent on classes before v1.3


@dataclass
class Class(ClassFacts):
    KEYS = keys.CLASS
    hasRaces: bool | None = None  # set by the first race's creation: the metric is fixed from then on


@dataclass
class RaceFacts(Entity):
    """What a race is, as its item and its catalog card both hold it."""

    raceId: str
    classId: str
    className: str
    startsAt: str
    durationSeconds: int
    status: str = OPEN
    racerCount: int = 0
    metric: str = OUTPUT  # its class's, when it was created (fixed from then on)


@dataclass
class Race(RaceFacts):
    KEYS = keys.RACE
    # Finishing: each POST finish of an unsettled race adds one to finishRequests (a stream
    # record the processor acts on); settled says ranks, bests and class board are final.
    finishRequests: int = 0
    settled: bool | None = None  # absent until settled
    slices: int | None = None  # the fan-in's slice count (``rules.fanin``), fixed at creation; absent on races before it


@dataclass
class RaceGate(Entity):
    """What telemetry checks of a race (status, duration, class), copied into ``GATE_COPIES``
    items of partitions of their own: every sample of every bike reads a copy, consistently,
    so the race's partition is left to its viewers. Written with the race, in one transaction,
    when it is created and when it is finished."""

    KEYS = keys.RACE_GATE
    raceId: str
    copy: int
    classId: str
    durationSeconds: int
    status: str = OPEN
    startsAt: str | None = None  # absent on gates written before v1.2: their seconds are not checked
    metric: str = OUTPUT
    slices: int | None = None  # the race's (``Race.slices``): telemetry finds a racer's slice with it

    @staticmethod
    def copy_for(racer_id: str) -> int:
        return zlib.crc32(racer_id.encode()) % GATE_COPIES

    @classmethod
    def copies_of(cls, race: Race) -> list[RaceGate]:
        return [cls(race.raceId, copy, race.classId, race.durationSeconds, race.status, race.startsAt, race.metric,
                    race.slices) for copy in range(GATE_COPIES)]


def _facts(entity: Entity) -> dict:
    return {f.name: getattr(entity, f.name) for f in fields(entity)}


@dataclass
class ClassCard(ClassFacts):
    """A class as ``GET /classes`` lists it: written with the class, in one transaction."""

    KEYS = keys.CLASS_CARD

    @classmethod
    def of(cls, klass: Class) -> ClassCard:
        return cls.from_values(_facts(klass))


@dataclass
class RaceCard(RaceFacts):
    """A race as ``GET /races`` lists it, in the list of its status, ordered by start time.

    Created with the race and moved to the finished list when the race is finished, in the
    same transactions; the stream keeps its racer count and class name those of the race."""

    KEYS = keys.RACE_CARD

    @classmethod
    def of(cls, race: Race, status: str | None = None) -> RaceCard:
        return cls.from_values({**_facts(race), "status": status or race.status})


def new_race_items(race: Race) -> list[Entity]:
    """A race as it is created: the race, its card, its empty board shards and its gate copies."""
    return [race, RaceCard.of(race), *(RaceBoard(race.raceId, shard) for shard in range(BOARD_SHARDS)),
            *RaceGate.copies_of(race)]


@dataclass
class Entry(Entity):
    """A racer in a race: their result, newest first in the racer's partition.

    ``chunks`` maps a history chunk number, as the stored map's key (``"0"``), to that chunk's
    ``Totals`` (stored as ``[points, lastSecond]``), so re-applying a chunk is idempotent; score
    and lastSecond are derived from it.
    ``equipment`` is what the ride is on (``fairplay``), ``device`` the device that holds it (None:
    none named yet). ``review`` is None or its state; ``rules`` the rules the ride broke, ``note`` the
    admin's, ``reviewedAt`` when its review item (``Review``) was written.
    """

    KEYS = keys.ENTRY
    raceId: str
    racerId: str
    name: str
    classId: str
    startsAt: str
    raceStatus: str = OPEN  # not "status": that one is projected to the inverted index
    rank: int | None = None
    chunks: dict[str, Totals] = field(default_factory=dict)
    equipment: str = "bike"
    device: str | None = None
    review: str | None = None
    rules: list = field(default_factory=list)
    note: str = ""
    reviewedAt: str | None = None
    metric: str = OUTPUT  # the race's: what the stream's live check judges (``fairplay``)
    rostered: str | None = None  # the batch of the race's roster the stream put the racer on (``races.add_roster``)
    tag: str | None = None  # the racer's in their slice's blocks and board (``rules.fanin.tags_of``); absent: the race has no slices

    _ABSENT_UNSET: ClassVar[tuple[str, ...]] = ("device", "review", "rules", "note", "reviewedAt", "rostered", "tag")

    def to_item(self) -> dict:
        """Absent, not null, while unset: conditions test ``attribute_not_exists(device)`` and ``(review)``."""
        item = super().to_item()
        for name in self._ABSENT_UNSET:
            if not getattr(self, name):
                item.pop(name, None)
        if self.metric == OUTPUT:  # an output class's entry stays as small as before v1.3
            item.pop("metric")
        return item

    def stored_values(self) -> dict:
        return {**super().stored_values(), "chunks": {str(chunk): stored_totals(totals)
                                                      for chunk, totals in self.chunks.items()}}

    @classmethod
    def from_values(cls, values: dict) -> Self:
        stored = values.get("chunks") or {}
        return super().from_values({**values, "chunks": {chunk: totals_of(pair) for chunk, pair in stored.items()}})

    @property
    def score(self) -> Decimal:
        return sum((Decimal(points) for points, _ in self.chunks.values()), Decimal(0))

    @property
    def lastSecond(self) -> int | None:
        return max((int(second) for _, second in self.chunks.values() if second is not None), default=None)


@dataclass
class Review(Entity):
    """A ride that waits for (``pending``) or has had (``cleared``, ``disqualified``) an admin's review,
    as ``GET /reviews`` lists it: in its state's partition, by ``at`` (when it was flagged or decided).
    The entry names its review's state and ``at``; a decision moves the review to another partition."""

    KEYS = keys.REVIEW
    state: str
    at: str
    raceId: str
    racerId: str
    classId: str
    name: str
    score: Decimal = Decimal(0)
    equipment: str = "bike"
    rules: list = field(default_factory=list)
    note: str = ""

    @classmethod
    def of(cls, entry: Entry, state: str, at: str) -> Review:
        return cls(state, at, entry.raceId, entry.racerId, entry.classId, entry.name, entry.score, entry.equipment,
                   list(entry.rules), entry.note)


@dataclass
class RaceBoard(Entity):
    """One shard of a race's live leaderboard: racerId -> [score, lastSecond, name, equipment, review], a
    ``rules.board.Standing`` as stored (``Standing.stored`` reads it, ``Standing.item`` writes it)."""

    KEYS = keys.RACE_BOARD
    raceId: str
    shard: int
    standings: dict[str, list] = field(default_factory=dict)

    @staticmethod
    def shard_of(racer_id: str) -> int:
        return zlib.crc32(racer_id.encode()) % BOARD_SHARDS


@dataclass
class RaceRoster(Entity):
    """Racers who joined a race, as one stream batch saw their joins: racerId -> [name, equipment, tag] (``tag``: the racer's in their slice, ``Entry.tag``; absent before the fan-in).

    A join writes only the racer's own items; the stream processor turns a batch's joins into one of these
    (and adds them to the race's ``racerCount`` in the same transaction), so the race's partition takes one
    small write a batch, not one a join. A racer with a standing on a board shard is shown from it; the
    roster shows the others with score 0 until they ride. The settlement writes every racer's standing,
    then drops the race's rosters."""

    KEYS = keys.RACE_ROSTER
    raceId: str
    batch: str  # the sequence number of the batch's first join record of the race (digits)
    racers: dict[str, list] = field(default_factory=dict)


@dataclass
class RaceTicker(Entity):
    """The race's ticker (``flows.ticking``): ``second``, the last race second whose board message was
    claimed, and ``owner``, the invocation that claimed it; one message a race second, whoever ticks."""

    KEYS = keys.RACE_TICKER
    raceId: str
    second: int = -1
    owner: str | None = None


@dataclass
class SecondBlock(Entity):
    """One second of one slice of a race (``rules.fanin``): the arbiter of its racers' seconds, first value wins.

    Each racer who sent the second is a top-level attribute named by their tag in the slice (``Entry.tag``)
    whose value is the second's four values and the origin that counted it, packed (``packed_counted``); so
    one update sets every racer it carries only where absent (``if_not_exists``) and returns what it found."""

    KEYS = keys.SECOND_BLOCK
    raceId: str
    slice: int
    second: int
    racers: dict[str, Counted] = field(default_factory=dict)  # tag -> the first value counted

    def to_item(self) -> dict:
        """Its key, its type and its racers: the race, slice and second are the key's alone."""
        racers = {tag: packed_counted(counted) for tag, counted in self.racers.items()}
        return _dump({**self.key, TYPE: self.KEYS.entity, **racers})

    @classmethod
    def from_values(cls, values: dict) -> Self:
        return cls(values["raceId"], int(values["slice"]), int(values["second"]), counted_in(values))


@dataclass
class SliceBoard(Entity):
    """A slice's live standings, in the race's partition beside the board shards: tag -> a
    ``rules.fanin.SliceStanding``, packed (``packed_standing``); ``applied``: per log shard, the sequence number
    of the last record whose counts it holds, and ``recent``: the origins of the last HTTP requests it counted
    (a batch or request retried after its board write counts nothing twice); ``version``: each write adds one."""

    KEYS = keys.SLICE_BOARD
    raceId: str
    slice: int
    standings: dict[str, SliceStanding] = field(default_factory=dict)
    applied: dict[str, str] = field(default_factory=dict)
    recent: list[str] = field(default_factory=list)
    version: int = 0

    def to_item(self) -> dict:
        standings = {tag: packed_standing(standing) for tag, standing in self.standings.items()}
        return _dump({**self.key, TYPE: self.KEYS.entity, "applied": self.applied, "recent": self.recent,
                      "version": self.version, **standings})

    @classmethod
    def from_values(cls, values: dict) -> Self:
        return cls(values["raceId"], int(values["slice"]),
                   {name: standing_of(value) for name, value in values.items() if is_tag(name)},
                   values.get("applied", {}), values.get("recent", []), values.get("version", 0))


@dataclass
class SliceTag(Entity):
    """A racer's tag in their race slice, claimed by the join (``storage.races.join``): the racer it names, and the
    device that holds their ride (a copy of the entry's, written in the same transactions: the join, the ride's claim,
    a takeover), so the slice's tags are its roster: what the telemetry log's consumer checks a batch against."""

    KEYS = keys.SLICE_TAG
    raceId: str
    slice: int
    tag: str
    racerId: str
    device: str | None = None

    def to_item(self) -> dict:
        """Its key, its type, the racer and the device (absent while none holds the ride): the race, slice and tag
        are the key's alone, so a slice's roster stays small to read."""
        return _dump({**self.key, TYPE: self.KEYS.entity, "racerId": self.racerId,
                      **({"device": self.device} if self.device else {})})

    @classmethod
    def from_values(cls, values: dict) -> Self:
        return cls(values["raceId"], int(values["slice"]), values["tag"], values["racerId"], values.get("device"))


@dataclass
class TelemetryRequest(Entity):
    """An Idempotency-Key of a telemetry request counted through the fan-in (``storage.blocks.claim_request``):
    ``request`` names the race's caller and key, ``body`` the digest of the body first sent under it
    (``rules.telemetry.Keyed``). Claimed before any block is written, so the key with another body writes nothing."""

    KEYS = keys.TELEMETRY_REQUEST
    raceId: str
    request: str
    body: str

    def to_item(self) -> dict:
        """Its key, its type and the body's digest: the race and the request are the key's alone."""
        return _dump({**self.key, TYPE: self.KEYS.entity, "body": self.body})


@dataclass
class ClassBoard(Entity):
    """A class's all-time leaderboard: racerId -> [bestScore, raceId, name], a ``rules.board.ClassStanding``
    as stored (``ClassStanding.stored`` reads it, ``ClassStanding.item`` writes it)."""

    KEYS = keys.CLASS_BOARD
    classId: str
    standings: dict[str, list] = field(default_factory=dict)
    version: int | None = None  # optimistic lock: each write adds one

    def to_item(self) -> dict:
        item = super().to_item()
        item.pop("version", None)
        return item


@dataclass
class RaceRequest(Entity):
    """Which race an Idempotency-Key of POST /classes/{classId}/races created."""

    KEYS = keys.RACE_REQUEST
    classId: str
    requestKey: str
    raceId: str


@dataclass
class Best(Entity):
    """A racer's best score in a class (raised only when beaten)."""

    KEYS = keys.BEST
    racerId: str
    classId: str
    bestScore: Decimal
    raceId: str
    name: str


@dataclass
class BestPace(Entity):
    """When the next Best write of a class may start (epoch seconds): Best items of a class
    share one index partition, so every invocation settling a race of the class reserves
    its write slots here."""

    KEYS = keys.BEST_PACE
    classId: str
    nextFree: Decimal = Decimal(0)


@dataclass
class Chunk(Entity):
    """Up to ``SECONDS`` seconds of one racer's samples in a race.

    Each second is a top-level attribute ``s<second>`` = [cadence, resistance] (then the heart
    rate, when one was sent: it rides in the chunk, the write stays one unit), so a
    write can set new seconds and, in the same condition, require them to be absent.
    ``points`` is the sum of their outputs. Chunk 0 is written when the racer joins.

    Compaction leaves a sealed chunk behind: no samples, and ``sealed`` = a bit per
    second of the chunk that was packed, so a late copy of a packed second is still
    found to be a duplicate (and a new second, to be too late).
    """

    KEYS = keys.CHUNK
    SECONDS: ClassVar[int] = CHUNK_SECONDS
    raceId: str
    racerId: str
    chunk: int
    classId: str
    points: Decimal = Decimal(0)
    samples: Seconds = field(default_factory=dict)
    sealed: int | None = None
    lastWrite: str | None = None  # the last write with an Idempotency-Key: its key, body and counts (``rules.telemetry.Keyed``)

    def stored_values(self) -> dict:
        values = {"raceId": self.raceId, "racerId": self.racerId, "chunk": self.chunk, "classId": self.classId,
                  "points": self.points, "sealed": self.sealed, "lastWrite": self.lastWrite}
        return {**values, **stored_seconds(self.samples)}

    @classmethod
    def from_values(cls, values: dict) -> Self:
        samples = {int(name[1:]): sample_of(value) for name, value in values.items() if _SAMPLE.match(name)}
        return cls(values["raceId"], values["racerId"], int(values["chunk"]), values["classId"],
                   values.get("points", Decimal(0)), samples, values.get("sealed"), values.get("lastWrite"))

    @property
    def live(self) -> bool:
        return self.sealed is None

    def seal_mask(self) -> int:
        """The ``sealed`` bits of this chunk's seconds."""
        return sum(1 << (second - self.chunk * self.SECONDS) for second in self.samples)


@dataclass
class PackedChunk(Entity):
    """Up to ``SECONDS`` seconds of a finished race's samples, gzip-compressed JSON.

    Written by compaction; its parts (race, racer, part) live only in its key and its
    attributes have one-letter names: ``c`` the class, ``d`` the data.
    """

    KEYS = keys.PACKED_CHUNK
    SECONDS: ClassVar[int] = 600
    raceId: str
    racerId: str
    part: int
    classId: str
    samples: Seconds = field(default_factory=dict)

    def to_item(self) -> dict:
        rows = [[second, *(None if value is None else str(value) for value in stored_sample(sample))] for second, sample in sorted(self.samples.items())]
        data = gzip.compress(json.dumps(rows, separators=(",", ":")).encode(), mtime=0)
        key = self.KEYS.key({"raceId": self.raceId, "racerId": self.racerId, "part": self.part})
        return _dump({**key, TYPE: self.KEYS.entity, "c": self.classId, "d": data})

    @classmethod
    def from_values(cls, values: dict) -> Self:
        rows = json.loads(gzip.decompress(values["d"]))
        samples = {second: sample_of([None if text is None else _decimal(text) for text in stored]) for second, *stored in rows}
        return cls(values["raceId"], values["racerId"], int(values["part"]), values["c"], samples)


@dataclass
class ReplayPart(Entity):
    """Part of a settled race's replay (``rules.replay``): for each of its racers, the cumulative score after
    each step of the race, in tenths. It lives in the race's partition, after the board, so the race, its
    board and its replay are read in one Query. A race's racers are spread over ``count_for(racers)`` parts
    by their id (``part_of``), about ``RACERS`` a part, so a part stays far below DynamoDB's 400 KB item.

    Stored: ``step`` (seconds between two scores) and ``rows``, racerId -> the row packed (``pack_row``).
    """

    KEYS = keys.REPLAY_PART
    RACERS: ClassVar[int] = 250
    raceId: str
    part: int
    step: int = 1
    rows: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def count_for(cls, racers: int) -> int:
        return max(1, -(-racers // cls.RACERS))

    @staticmethod
    def part_of(racer_id: str, parts: int) -> int:
        return zlib.crc32(racer_id.encode()) % parts

    @classmethod
    def split(cls, race_id: str, step: int, rows: dict[str, list[int]]) -> list[ReplayPart]:
        """The parts holding ``rows`` (racerId -> cumulative tenths), every part there even when empty."""
        count = cls.count_for(len(rows))
        parts = [cls(race_id, part, step) for part in range(count)]
        for racer_id, row in rows.items():
            parts[cls.part_of(racer_id, count)].rows[racer_id] = row
        return parts

    def stored_values(self) -> dict:
        return {"raceId": self.raceId, "part": self.part, "step": self.step,
                "rows": {racer_id: pack_row(row) for racer_id, row in self.rows.items()}}

    @classmethod
    def from_values(cls, values: dict) -> Self:
        return cls(values["raceId"], int(values["part"]), int(values.get("step", 1)),
                   {racer_id: unpack_row(packed) for racer_id, packed in (values.get("rows") or {}).items()})


def pack_row(row: list[int]) -> bytes:
    """A replay row (cumulative tenths) as bytes: the zigzag varints of its second differences. A rider
    holding a steady effort changes by a few tenths a second: a byte a step (docs/capacity.md)."""
    out = bytearray()
    before, rise_before = 0, 0
    for value in row:
        rise = value - before
        change = rise - rise_before
        number = change * 2 if change >= 0 else -change * 2 - 1
        while number >= 0x80:
            out.append(number & 0x7F | 0x80)
            number >>= 7
        out.append(number)
        before, rise_before = value, rise
    return bytes(out)


def unpack_row(packed: bytes) -> list[int]:
    row: list[int] = []
    value = rise = number = shift = 0
    for byte in packed:
        number |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
            continue
        rise += number >> 1 if not number & 1 else -((number + 1) >> 1)
        value += rise
        row.append(value)
        number = shift = 0
    return row


def _decimal(text: str):
    value = Decimal(text)
    return int(value) if value == value.to_integral_value() and "." not in text else value


_SAMPLE = re.compile(r"^s\d+$")
def is_tag(name: str) -> bool:
    """Whether a block's or a slice board's attribute ``name`` is a racer's tag: their other names are longer or
    shorter."""
    return len(name) == TAG_CHARS


# A block's racer, packed: cadence and resistance in ten-thousandths (3 bytes each: 300 and 100 at most), the heart
# rate (1 byte, 0: none sent; 30-250 bpm), the power (2 bytes, NO_POWER: none sent; 0-3000 W), the origin's bytes.
_PLACES = Decimal(10_000)
NO_POWER = 0xFFFF
_COUNTED = struct.Struct(">3s3sBH")


def _fixed(value, size: int) -> bytes:
    return int(Decimal(value) * _PLACES).to_bytes(size, "big")


def _exact(data: bytes) -> Decimal:
    return (int.from_bytes(data, "big") / _PLACES).normalize()


def packed_counted(counted: Counted) -> bytes:
    sample = counted.sample
    return _COUNTED.pack(_fixed(sample.cadence, 3), _fixed(sample.resistance, 3), sample.heart_rate or 0,
                         NO_POWER if sample.power is None else sample.power) + base64.urlsafe_b64decode(counted.origin)


def counted_of(packed: bytes) -> Counted:
    cadence, resistance, heart_rate, power = _COUNTED.unpack_from(packed)
    return Counted(Sample(_exact(cadence), _exact(resistance), heart_rate or None, None if power == NO_POWER else power),
                   base64.urlsafe_b64encode(packed[_COUNTED.size:]).decode())


def counted_in(values: dict) -> dict[str, Counted]:
    """The racers' seconds among a block's attributes (tag -> counted), whatever else it holds."""
    return {name: counted_of(value) for name, value in values.items() if is_tag(name)}


# A slice board's racer, packed: the score in ten-thousandths (5 bytes: 10^8 points, an hour at 3,000 W is 1.08 x 10^7),
# the last second (2 bytes, NO_SECOND: none yet).
NO_SECOND = 0xFFFF


def packed_standing(standing: SliceStanding) -> bytes:
    last = NO_SECOND if standing.last_second is None else standing.last_second
    return _fixed(standing.score, 5) + last.to_bytes(2, "big")


def standing_of(packed: bytes) -> SliceStanding:
    last = int.from_bytes(packed[5:7], "big")
    return SliceStanding(_exact(packed[:5]), None if last == NO_SECOND else last)


def sample_attribute(second: int) -> str:
    return f"s{second}"


# --- the ride's types as stored: the one place their lists are built and read ----------------

def stored_sample(sample: Sample) -> list:
    """A second as a chunk's ``s<second>`` attribute (and a packed row, after its second) holds it:
    ``[cadence, resistance]``, then the heart rate when one was sent, then the power when it was (after
    the heart rate, null when none was sent): a second without them takes no byte for them."""
    stored = list(sample)
    while stored and stored[-1] is None:
        stored.pop()
    return stored


def sample_of(stored: list) -> Sample:
    return Sample(*stored)


def stored_seconds(samples: Seconds) -> dict[str, list]:
    """A chunk's samples as its attributes: ``s<second>`` -> the stored sample."""
    return {sample_attribute(second): stored_sample(sample) for second, sample in samples.items()}


def stored_totals(totals: Totals) -> list:
    """A chunk's totals as the entry's ``chunks`` map holds them: ``[points, lastSecond]``."""
    points, last_second = totals
    return [points, last_second]


def totals_of(stored: list) -> Totals:
    points, last_second = stored
    return Totals(points, last_second)


_BY_TYPE: dict[str, type[Entity]] = {
    cls.KEYS.entity: cls for cls in (Racer, Class, Race, RaceGate, RaceRequest, Entry, RaceBoard, RaceRoster, RaceTicker, ClassBoard, Best, Chunk, PackedChunk,
                                     BestPace, ClassCard, RaceCard, Review, ReplayPart, SecondBlock, SliceBoard, SliceTag,
                                     TelemetryRequest)
}


def from_item(item: dict) -> Entity:
    """A stored item (low-level attribute values) as its entity."""
    values = _load(item)
    cls = _BY_TYPE.get(values.get(TYPE, ""))
    if cls is None:
        raise ValueError(f"item of unknown type {values.get(TYPE)!r}")
    return cls.from_values({**cls.KEYS.parse(values), **values})


def item_as[E: Entity](cls: type[E], item: dict) -> E:
    """A stored item as the entity ``cls``, which its type must name."""
    entity = from_item(item)
    if not isinstance(entity, cls):
        raise TypeError(f"a {cls.__name__} was expected, the item is a {type(entity).__name__}")
    return entity


def from_items(items: list[dict]) -> list[Entity]:
    return [from_item(item) for item in items]
