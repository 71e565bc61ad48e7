"""The ride's stored shapes as types (``alleycat.rules.samples``), through ``storage.entities``' converters:
an item as DynamoDB holds it becomes typed values and the same bytes again."""

import gzip
import json
from decimal import Decimal

from alleycat.rules.samples import Sample, Totals, totals_of
from alleycat.storage import entities as e
from alleycat.storage import keys

RACE_ID = "01JD5Z6Q8X0000000000000000"


def n(text):
    return {"N": text}


def stored_key(entity_keys, **parts):
    return {name: {"S": value} for name, value in entity_keys.key(parts).items()}


def chunk_item(chunk, **attributes):
    key = stored_key(keys.CHUNK, raceId=RACE_ID, racerId="bob", chunk=chunk)
    return {**key, "type": {"S": "Chunk"}, "raceId": {"S": RACE_ID}, "racerId": {"S": "bob"}, "chunk": n(str(chunk)),
            "classId": {"S": "hill"}, **attributes}


def test_an_entrys_chunk_totals_are_typed_and_stored_as_the_same_points_and_last_second():
    key = stored_key(keys.ENTRY, raceId=RACE_ID, racerId="bob")
    item = {**key, "type": {"S": "Entry"}, "raceId": {"S": RACE_ID}, "racerId": {"S": "bob"}, "name": {"S": "Bob"},
            "classId": {"S": "hill"}, "startsAt": {"S": "2026-11-22T10:00:00Z"}, "raceStatus": {"S": "open"},
            "chunks": {"M": {"0": {"L": [n("131.0400"), n("29")]}, "1": {"L": [n("0"), {"NULL": True}]}}},
            "equipment": {"S": "trainer"}, "device": {"S": "phone-1"}}
    entry = e.from_item(item)
    assert entry.chunks["0"].points == Decimal("131.04") and entry.chunks["0"].last_second == 29
    assert entry.chunks["1"] == Totals(0, None)
    # 131.04 + 0; the highest second of a chunk with one
    assert entry.score == Decimal("131.04") and entry.lastSecond == 29
    assert entry.to_item() == item


def test_a_chunks_seconds_are_samples_stored_as_cadence_then_resistance():
    item = chunk_item(1, points=n("264.88"), lastWrite={"S": "0123456789abcdef:2:0"},
                      s30={"L": [n("82"), n("47")]}, s31={"L": [n("84.5"), n("47")]})
    chunk = e.from_item(item)
    assert chunk.samples == {30: Sample(82, 47), 31: Sample(Decimal("84.5"), 47)}
    assert chunk.samples[31].cadence == Decimal("84.5") and chunk.samples[31].resistance == 47
    assert chunk.lastWrite == "0123456789abcdef:2:0"
    assert chunk.to_item() == item


def test_a_sealed_chunk_round_trips_with_its_bits_and_no_samples():
    item = chunk_item(2, points=n("0"), sealed=n(str(2 ** 30 - 1)))
    chunk = e.from_item(item)
    assert chunk.samples == {} and chunk.sealed == 1073741823 and not chunk.live
    assert chunk.to_item() == item


def test_a_packed_parts_rows_are_samples_and_pack_to_the_same_bytes():
    rows = [[0, "80", "50.25"], [1, "81.5", "50"], [599, "0.0001", "100"]]
    data = gzip.compress(json.dumps(rows, separators=(",", ":")).encode(), mtime=0)
    item = {**stored_key(keys.PACKED_CHUNK, raceId=RACE_ID, racerId="bob", part=0), "type": {"S": "PackedChunk"},
            "c": {"S": "hill"}, "d": {"B": data}}
    packed = e.from_item(item)
    assert packed.samples == {0: Sample(80, Decimal("50.25")), 1: Sample(Decimal("81.5"), 50),
                              599: Sample(Decimal("0.0001"), 100)}
    assert packed.to_item() == item


def test_a_samples_output_is_the_contracts_formula():
    # (82 + 35) x (47 + 65) / 100 = 131.04; (84.5 + 35) x 112 / 100 = 133.84; (0 + 35) x (0 + 65) / 100 = 22.75
    assert Sample(82, 47).output == Decimal("131.04")
    assert Sample(Decimal("84.5"), 47).output == Decimal("133.84")
    assert Sample(0, 0).output == Decimal("22.75")
    # 4 places, half up: (0.0001 + 35) x 65 / 100 = 22.750065 -> 22.7501
    assert Sample(Decimal("0.0001"), 0).output == Decimal("22.7501")


def test_a_telemetry_sample_is_stored_exactly_to_four_places():
    assert Sample.of({"cadence": 84.5, "resistance": 47}) == Sample(Decimal("84.5"), Decimal(47))
    assert str(Sample.of({"cadence": 82, "resistance": 47.0}).resistance) == "47"
    assert str(Sample.of({"cadence": 90.12345, "resistance": 0.00004}).cadence) == "90.1235"
    assert Sample.of({"cadence": 90.12345, "resistance": 0.00004}).resistance == 0
    # the number as sent (2.00005, half up: 2.0001), not the binary float nearest it (2.0000499...)
    assert Sample.of({"cadence": 2.00005, "resistance": 0}).cadence == Decimal("2.0001")


def test_a_chunks_totals_are_its_outputs_summed_and_its_highest_second():
    assert totals_of({31: Sample(Decimal("84.5"), 47), 30: Sample(82, 47)}) == Totals(Decimal("264.88"), 31)
    assert totals_of({}) == Totals(0, None)
