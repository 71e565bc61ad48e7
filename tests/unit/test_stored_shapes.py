"""The ride's stored shapes as types (``alleycat.rules.samples``), through ``storage.entities``' converters:
an item as DynamoDB holds it becomes typed values and the same bytes again."""

import gzip
import json
from decimal import Decimal

from alleycat.edge import views
from alleycat.rules import telemetry
from alleycat.rules.samples import Sample, Totals, totals_of
from alleycat.storage import entities as e
from alleycat.storage import keys, sizing

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
    item = chunk_item(1, points=n("264.88"), lastWrite={"S": "0123456_.0123456789-:2:0"},
                      s30={"L": [n("82"), n("47")]}, s31={"L": [n("84.5"), n("47")]})
    chunk = e.from_item(item)
    assert chunk.samples == {30: Sample(82, 47), 31: Sample(Decimal("84.5"), 47)}
    assert chunk.samples[31].cadence == Decimal("84.5") and chunk.samples[31].resistance == 47
    assert chunk.lastWrite == "0123456_.0123456789-:2:0"
    assert chunk.to_item() == item


def test_a_heart_rate_rides_third_in_its_seconds_attribute_and_seconds_without_one_stay_two_long():
    item = chunk_item(1, points=n("264.88"), s30={"L": [n("82"), n("47"), n("131")]}, s31={"L": [n("84.5"), n("47")]})
    chunk = e.from_item(item)
    assert chunk.samples == {30: Sample(82, 47, 131), 31: Sample(Decimal("84.5"), 47, None)}
    assert chunk.samples[30].heart_rate == 131 and chunk.samples[31].heart_rate is None
    assert chunk.to_item() == item


def test_a_trainers_chunk_of_30_seconds_with_power_and_heart_rates_is_one_write_unit():
    # docs/capacity.md: a smart trainer's seconds (FTMS: cadence in half rpm, a whole-percent resistance, whole
    # watts) with a strap's heart rate, on a 36-character Cognito sub in an hour's race with an Idempotency-Key
    # record, stay within one write unit; only 4-decimal cadence and resistance with power pass it (two)
    racer_id = "0c4f6b1e-9a7d-4c1b-8e2f-3d5a6b7c8d9e"
    widest = Sample(Decimal("299.5"), 100, 249, 2999)
    seconds = {second: widest for second in range(3570, 3600)}
    sent = [{"racerId": racer_id, "second": second, "cadence": widest.cadence, "resistance": widest.resistance,
             "heartRate": widest.heart_rate, "power": widest.power} for second in seconds]
    chunk = e.Chunk(RACE_ID, racer_id, 119, "a-class-id-of-64-characters".ljust(64, "x"), Decimal(89970),
                    seconds, None, telemetry.keyed("a-key", "a-device", sent).record(30, 0))
    assert sizing.write_units(sizing.item_size(chunk.to_item())) == 1
    decimals = {second: widest._replace(cadence=Decimal("299.1234"), resistance=Decimal("99.1234")) for second in seconds}
    assert sizing.write_units(sizing.item_size(e.Chunk(**{**vars(chunk), "samples": decimals}).to_item())) == 2


def test_a_chunk_of_30_seconds_with_heart_rates_is_still_one_write_unit():
    # docs/capacity.md: the widest live chunk (a 36-character Cognito sub, 4-decimal values, the highest
    # seconds of an hour's race, an Idempotency-Key record) stays within the 1 KB of one write unit
    racer_id = "0c4f6b1e-9a7d-4c1b-8e2f-3d5a6b7c8d9e"
    assert len(racer_id) == 36
    widest = Sample(Decimal("299.1234"), Decimal("99.1234"), 249)
    seconds = {second: widest for second in range(3570, 3600)}
    sent = [{"racerId": racer_id, "second": second, "cadence": widest.cadence, "resistance": widest.resistance,
             "heartRate": widest.heart_rate} for second in seconds]
    chunk = e.Chunk(RACE_ID, racer_id, 119, "a-class-id-of-64-characters".ljust(64, "x"), Decimal("99999.9999"),
                    seconds, None, telemetry.keyed("a-key", "a-device", sent).record(30, 0))
    size = sizing.item_size(chunk.to_item())
    assert size <= 1024 and sizing.write_units(size) == 1


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


def test_a_packed_parts_rows_keep_the_heart_rates_sent_and_none_where_none_was():
    rows = [[0, "80", "50", "72"], [1, "81.5", "50"], [2, "82", "50", "131"]]
    data = gzip.compress(json.dumps(rows, separators=(",", ":")).encode(), mtime=0)
    item = {**stored_key(keys.PACKED_CHUNK, raceId=RACE_ID, racerId="bob", part=0), "type": {"S": "PackedChunk"},
            "c": {"S": "hill"}, "d": {"B": data}}
    packed = e.from_item(item)
    assert packed.samples == {0: Sample(80, 50, 72), 1: Sample(Decimal("81.5"), 50),
                              2: Sample(82, 50, 131)}
    assert packed.to_item() == item


def test_a_history_row_ends_in_the_heart_rate_and_the_power_or_nulls():
    # contract v1.3: [second, cadence, resistance, output, heartRate, power], null where none was sent;
    # (82 + 35) x (47 + 65) / 100 = 131.04
    assert views.history_row(0, Sample(82, 47, 131)) == [0, 82, 47, 131.04, 131, None]
    assert views.history_row(1, Sample(82, 47)) == [1, 82, 47, 131.04, None, None]
    assert views.history_row(2, Sample(82, 47, None, 212)) == [2, 82, 47, 131.04, None, 212]


def test_power_rides_fourth_after_the_heart_rate_or_a_null_and_seconds_without_either_stay_two_long():
    item = chunk_item(1, points=n("424"), s30={"L": [n("82"), n("47"), n("131"), n("212")]},
                      s31={"L": [n("84.5"), n("47"), {"NULL": True}, n("212")]}, s32={"L": [n("84"), n("47")]})
    chunk = e.from_item(item)
    assert chunk.samples == {30: Sample(82, 47, 131, 212), 31: Sample(Decimal("84.5"), 47, None, 212), 32: Sample(84, 47)}
    assert chunk.to_item() == item
    packed = e.PackedChunk(RACE_ID, "bob", 0, "hill", chunk.samples)
    assert e.from_item(packed.to_item()).samples == chunk.samples


def test_a_seconds_score_is_its_output_or_in_a_power_class_its_watts():
    assert Sample(82, 47, None, 212).score("output") == Decimal("131.04")
    assert Sample(82, 47, None, 212).score("power") == 212
    assert totals_of({0: Sample(82, 47, 131, 212), 1: Sample(0, 0, None, 0), 2: Sample(90, 50, None, 301)}, "power") == Totals(513, 2)


def test_a_sent_samples_power_is_stored_in_whole_watts_and_none_where_none_or_null_was_sent():
    assert Sample.of({"cadence": 80, "resistance": 50, "power": 212}) == Sample(80, 50, None, 212)
    assert Sample.of({"cadence": 80, "resistance": 50, "heartRate": 131, "power": 212.0}).power.__class__ is int
    assert Sample.of({"cadence": 80, "resistance": 50, "power": None}) == Sample(80, 50)
    assert Sample.of({"cadence": 80, "resistance": 50}).power is None


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


def test_a_telemetry_samples_heart_rate_is_optional_exact_and_no_part_of_the_output():
    assert Sample.of({"cadence": 82, "resistance": 47}).heart_rate is None
    assert Sample.of({"cadence": 82, "resistance": 47, "heartRate": None}).heart_rate is None
    assert Sample.of({"cadence": 82, "resistance": 47, "heartRate": 131}) == Sample(82, 47, 131)
    # whole bpm, half up, as a strap measures them
    assert Sample.of({"cadence": 82, "resistance": 47, "heartRate": 131.4}).heart_rate == 131
    assert Sample.of({"cadence": 82, "resistance": 47, "heartRate": 130.5}).heart_rate == 131
    assert Sample.of({"cadence": 82, "resistance": 47, "heartRate": 249.99}).heart_rate == 250
    # (82 + 35) x (47 + 65) / 100 whatever the heart rate
    assert Sample.of({"cadence": 82, "resistance": 47, "heartRate": 190}).output == Decimal("131.04")


def test_a_chunks_totals_are_its_outputs_summed_and_its_highest_second():
    assert totals_of({31: Sample(Decimal("84.5"), 47), 30: Sample(82, 47)}) == Totals(Decimal("264.88"), 31)
    assert totals_of({}) == Totals(0, None)
