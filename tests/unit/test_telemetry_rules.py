"""Telemetry's rules (``alleycat.rules.telemetry``): the batch's check, the server clock's ``not yet``, the
plan per racer chunk, and what a refused chunk write decides. Expected values from the contract
(shared/spec/api.md, ``POST /races/{raceId}/telemetry``) and arithmetic done here."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from alleycat.errors import BadRequest, Forbidden, Unprocessable
from alleycat.rules import telemetry
from alleycat.rules.samples import Sample
from alleycat.rules.telemetry import ChunkWrite, StoredChunk

STARTS_AT = "2026-11-22T10:00:00Z"
START = datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC).timestamp()
NOT_JOINED = "racer has not joined this race"


def sent(racer_id, second, cadence=80, resistance=50):
    return {"racerId": racer_id, "second": second, "cadence": cadence, "resistance": resistance}


# --- the check: before anything is written --------------------------------------------------

def test_a_racer_may_send_only_their_own_samples_an_admin_anyones():
    batch = [sent("me", 0), sent("you", 1)]
    with pytest.raises(Forbidden, match=r"samples\[1\]"):
        telemetry.check(300, batch, "me", caller_is_admin=False)
    telemetry.check(300, batch, "me", caller_is_admin=True)


@pytest.mark.parametrize("second, refused", [(0, False), (299, False), (300, True), (-1, True)])
def test_a_second_must_be_within_the_races_duration(second, refused):
    batch = [sent("me", 0), sent("me", second)]
    if refused:
        with pytest.raises(BadRequest, match=r"samples\[1\]\.second .* 0 to 299"):
            telemetry.check(300, batch, "me", caller_is_admin=True)
    else:
        telemetry.check(300, batch, "me", caller_is_admin=True)


# --- not yet: seconds <= floor(now - start) + 2 have happened -----------------------------

@pytest.mark.parametrize("after_start, latest", [
    (10.3, 12),     # floor(10.3) + 2
    (10.999, 12),
    (0.0, 2),       # at the start: seconds 0, 1, 2
    (-0.5, 1),      # floor(-0.5) = -1
    (-5.0, -3),     # before the start: not even second 0
])
def test_the_latest_second_that_has_happened_by_the_servers_clock(after_start, latest):
    assert telemetry.latest(STARTS_AT, START + after_start) == latest


def test_a_gate_without_a_start_checks_no_second_and_a_start_no_race_may_have_lets_none_happen():
    assert telemetry.latest(None, START) is None
    assert telemetry.latest("9999-12-31T23:59:59Z", START) == -1
    writes, outcome = telemetry.plan({"me"}, [sent("me", 0)], telemetry.latest("9999-12-31T23:59:59Z", START))
    assert writes == {} and outcome.rejected == [{"racerId": "me", "second": 0, "reason": "not yet"}]


def test_seconds_after_the_latest_are_rejected_not_yet_and_the_rest_planned():
    latest = telemetry.latest(STARTS_AT, START + 10.3)  # 12
    writes, outcome = telemetry.plan({"me"}, [sent("me", 13), sent("me", 12), sent("me", 299)], latest)
    assert list(writes) == [("me", 0)] and list(writes[("me", 0)]) == [12]
    assert outcome.rejected == [{"racerId": "me", "second": 13, "reason": "not yet"},
                                {"racerId": "me", "second": 299, "reason": "not yet"}]
    assert (outcome.accepted, outcome.duplicates) == (0, 0)  # accepted only once written


def test_without_a_latest_any_second_is_planned():
    writes, outcome = telemetry.plan({"me"}, [sent("me", 299)], None)
    assert list(writes) == [("me", 9)] and outcome.rejected == []  # 299 // 30 = 9


# --- the plan: per racer chunk of 30 seconds -------------------------------------------------

def test_a_racer_not_joined_is_rejected_and_the_rest_of_the_batch_still_applied():
    # the racer who has not joined comes FIRST: the samples after theirs are still planned
    batch = [sent("stranger", 5), sent("me", 0, 82, 47), sent("me", 1, 84.5, 47), sent("stranger", 6)]
    writes, outcome = telemetry.plan({"me"}, batch)
    assert writes == {("me", 0): {0: Sample(Decimal(82), Decimal(47)), 1: Sample(Decimal("84.5"), Decimal(47))}}
    assert outcome.rejected == [{"racerId": "stranger", "second": 5, "reason": NOT_JOINED},
                                {"racerId": "stranger", "second": 6, "reason": NOT_JOINED}]


def test_a_racer_whose_ride_another_device_holds_is_rejected_another_device():
    batch = [sent("held", 3), sent("me", 3)]
    writes, outcome = telemetry.plan({"me", "held"}, batch, elsewhere=frozenset({"held"}))
    assert list(writes) == [("me", 0)]
    assert outcome.rejected == [{"racerId": "held", "second": 3, "reason": "another device"}]


def test_not_joined_comes_before_another_device_and_another_device_before_not_yet():
    batch = [sent("stranger", 50), sent("held", 50)]
    _, outcome = telemetry.plan({"held"}, batch, latest=10, elsewhere=frozenset({"stranger", "held"}))
    assert [r["reason"] for r in outcome.rejected] == [NOT_JOINED, "another device"]


def test_a_second_repeated_in_the_batch_is_a_duplicate_and_the_first_value_wins():
    batch = [sent("me", 7, 90, 40), sent("me", 7, 10, 10), sent("you", 7, 60, 30), sent("me", 7, 20, 20)]
    writes, outcome = telemetry.plan({"me", "you"}, batch)
    assert writes[("me", 0)] == {7: Sample(Decimal(90), Decimal(40))}
    assert writes[("you", 0)] == {7: Sample(Decimal(60), Decimal(30))}
    assert outcome.duplicates == 2 and outcome.rejected == []


def test_seconds_are_planned_in_chunks_of_thirty_per_racer():
    batch = [sent("me", s) for s in (0, 29, 30, 59, 60)] + [sent("you", 29)]
    writes, _ = telemetry.plan({"me", "you"}, batch)
    assert {chunk: sorted(seconds) for chunk, seconds in writes.items()} == {
        ("me", 0): [0, 29], ("me", 1): [30, 59], ("me", 2): [60], ("you", 0): [29]}


# --- the outcome: the contract's answer -------------------------------------------------------

def test_chunk_writes_add_up_and_seconds_too_late_are_rejected():
    _, outcome = telemetry.plan({"me"}, [sent("stranger", 1)])
    outcome.add("me", ChunkWrite(accepted=3, duplicates=1))
    outcome.add("you", ChunkWrite(accepted=2, duplicates=0, too_late=[61, 62]))
    assert outcome.as_body() == {
        "accepted": 5, "duplicates": 1,
        "rejected": [{"racerId": "stranger", "second": 1, "reason": NOT_JOINED},
                     {"racerId": "you", "second": 61, "reason": "the race was finished before this sample arrived"},
                     {"racerId": "you", "second": 62, "reason": "the race was finished before this sample arrived"}]}


# --- a refused chunk write: duplicates, too late, or this very request again ------------------

PENDING = {30: Sample(80, 50), 31: Sample(81, 50), 32: Sample(82, 50)}


def test_seconds_stored_meanwhile_are_duplicates_and_the_rest_is_written_again():
    written = ChunkWrite()
    again = telemetry.after_refusal(PENDING, StoredChunk(1, frozenset({30, 32, 40})), None, written)
    assert again == {31: Sample(81, 50)}
    assert (written.accepted, written.duplicates, written.too_late) == (0, 2, [])


def test_a_chunk_sealed_by_the_finish_counts_the_seconds_it_held_as_duplicates_the_others_too_late():
    # chunk 1 holds seconds 30-59; bits 0 and 2 set: it held 30 and 32 when it was packed
    written = ChunkWrite()
    again = telemetry.after_refusal(PENDING, StoredChunk(1, frozenset(), sealed=0b101), None, written)
    assert again == {} and written.duplicates == 2 and written.too_late == [31]


def test_a_sealed_chunk_zero_reads_its_bits_from_second_zero():
    written = ChunkWrite()
    telemetry.after_refusal({0: Sample(1, 1), 1: Sample(1, 1)}, StoredChunk(0, frozenset(), sealed=0b10), None, written)
    assert written.duplicates == 1 and written.too_late == [0]


BODY = [sent("me", 30), sent("me", 31, cadence=81), sent("me", 32, cadence=82)]  # what PENDING was sent as
REQUEST = telemetry.keyed("key-1", None, BODY)


def test_the_same_request_sent_again_answers_what_its_first_attempt_did():
    written = ChunkWrite()
    stored = StoredChunk(1, frozenset(PENDING), last_write=REQUEST.record(2, 1))
    assert telemetry.after_refusal(PENDING, stored, REQUEST, written) == {}
    assert (written.accepted, written.duplicates) == (2, 1)


def test_a_recorded_request_is_not_taken_for_a_retry_once_this_attempt_found_duplicates():
    written = ChunkWrite(duplicates=1)
    stored = StoredChunk(1, frozenset({30}), last_write=REQUEST.record(2, 0))
    assert telemetry.after_refusal(PENDING, stored, REQUEST, written) == {31: Sample(81, 50), 32: Sample(82, 50)}
    assert (written.accepted, written.duplicates) == (0, 2)


def test_another_requests_record_is_not_this_ones():
    written = ChunkWrite()
    stored = StoredChunk(1, frozenset({32}), last_write=telemetry.keyed("key-2", None, BODY).record(3, 0))
    telemetry.after_refusal(PENDING, stored, REQUEST, written)
    assert (written.accepted, written.duplicates) == (0, 1)


def test_this_key_recorded_with_another_body_is_unprocessable_before_anything_is_counted():
    # contract: the same key with a different body is 422 and writes nothing
    other = telemetry.keyed("key-1", None, BODY[:2]).record(2, 0)
    for stored in (StoredChunk(1, frozenset({30, 31}), last_write=other),
                   StoredChunk(1, frozenset({30, 31}), sealed=0b11, last_write=other)):
        written = ChunkWrite()
        with pytest.raises(Unprocessable, match="^this Idempotency-Key was sent before with another body"):
            telemetry.settled(PENDING, stored, REQUEST, written)
        assert written == ChunkWrite()
    with pytest.raises(Unprocessable):
        telemetry.refuse_reuse(REQUEST, other)
    # the key's own body, another key's record, no record, a record from before whole-body digests: no 422
    for last_write in (REQUEST.record(3, 0), telemetry.keyed("key-2", None, BODY[:2]).record(2, 0), None,
                       "0123456789abcdef:2:0"):
        telemetry.refuse_reuse(REQUEST, last_write)
    telemetry.refuse_reuse(None, other)  # a request with no key is never a reuse


def test_a_body_digest_is_of_the_whole_body_as_the_server_reads_it():
    def body(samples, device=None, key="key-1"):
        return telemetry.keyed(key, device, samples)

    # the same meaning, written otherwise, is the same body (a client's retry may serialise it anew)
    assert body(BODY) == REQUEST
    assert body([{**BODY[0], "cadence": 80.0}, *BODY[1:]]) == REQUEST
    assert body([{**BODY[0], "heartRate": None}, *BODY[1:]]) == REQUEST
    assert body([{**BODY[0], "heartRate": 131.2}]) == body([{**BODY[0], "heartRate": 131}])  # whole bpm, as stored
    # anything else is another body under the same key
    others = [BODY[:2], BODY + [sent("me", 33)], list(reversed(BODY)), [sent("me", 30, resistance=51), *BODY[1:]],
              [{**BODY[0], "heartRate": 131}, *BODY[1:]], [sent("you", 30), *BODY[1:]], [sent("me", 29), *BODY[1:]]]
    assert {body(other).tag for other in others} == {REQUEST.tag}
    assert len({body(other).body for other in others} | {REQUEST.body}) == len(others) + 1
    assert body(BODY, device="tab-1").body != REQUEST.body != body(BODY, device="tab-2").body
    # another key, the same body: another tag
    assert body(BODY, key="key-2").tag != REQUEST.tag and body(BODY, key="key-2").body == REQUEST.body


def test_a_record_is_the_key_tag_the_body_digest_and_the_counts_blake2b_base64url():
    # 6 bytes of the key (8 characters), 8 of the canonical body (11): the widest chunk stays one write unit
    import base64
    import hashlib

    def b64(data, size):
        return base64.urlsafe_b64encode(hashlib.blake2b(data, digest_size=size).digest()).decode().rstrip("=")

    samples = [{"racerId": "r1", "second": 31, "cadence": Decimal("80.50"), "resistance": 50, "heartRate": 131},
               {"racerId": "r1", "second": 30, "cadence": 90, "resistance": 40}]
    assert telemetry.canonical_body("tab-1", samples) == "tab-1|r1,31,80.5,50,131;r1,30,90,40,"
    request = telemetry.keyed("req-1", "tab-1", samples)
    assert request == telemetry.Keyed(b64(b"req-1", 6), b64(b"tab-1|r1,31,80.5,50,131;r1,30,90,40,", 8))
    assert (len(request.tag), len(request.body)) == (8, 11)
    assert request.record(3, 1) == f"{request.tag}.{request.body}:3:1"
    assert request.record(3, 1).startswith(request.prefix) and request.prefix.startswith(request.key_prefix)
    assert telemetry.recorded(request.record(3, 1)) == (request.tag, request.body, 3, 1)
    assert telemetry.recorded("0123456789abcdef:3:1") is None and telemetry.recorded(None) is None


def test_a_refusal_with_no_stored_second_and_no_seal_is_an_error_not_a_silent_loss():
    with pytest.raises(RuntimeError):
        telemetry.after_refusal(PENDING, StoredChunk(1, frozenset({33})), None, ChunkWrite())


def test_a_chunk_sealed_with_no_second_held_none():
    # sealed = 0: the finish sealed the chunk and it held no second (bit n is its n-th second).
    chunk = StoredChunk(chunk=2, seconds=frozenset(), sealed=0)
    assert [chunk.sealed_with(second) for second in (60, 61, 89)] == [False, False, False]
    assert StoredChunk(chunk=2, seconds=frozenset(), sealed=0b101).sealed_with(62) is True


def test_a_refusal_with_no_second_stored_is_an_error_naming_the_chunk():
    with pytest.raises(RuntimeError, match="chunk 4"):
        telemetry.after_refusal({120: Sample(80, 50)}, StoredChunk(chunk=4, seconds=frozenset({121})), None, ChunkWrite())


def test_only_a_racer_whose_samples_span_chunks_has_them_read_first():
    # a bike's second, and a racer's seconds within one half-minute: written at once
    assert telemetry.chunks_to_read([sent("a", 7)], 3600) == set()
    assert telemetry.chunks_to_read([sent("a", 30), sent("a", 59), sent("b", 0)], 3600) == set()
    # a racer's seconds over three half-minutes: each of them read; the other racer's not
    batch = [sent("a", 0), sent("a", 31), sent("a", 95), sent("b", 3)]
    assert telemetry.chunks_to_read(batch, 3600) == {("a", 0), ("a", 1), ("a", 3)}
    # seconds no race may hold name no chunk (the batch is a 400)
    assert telemetry.chunks_to_read([sent("a", 3600), sent("a", 10**9), sent("a", -1)], 3600) == set()


def test_a_request_with_a_key_that_writes_more_than_one_chunk_has_every_one_read_first():
    # so that a key reused with another body is refused before any chunk is written; a bike's second is not read
    assert telemetry.chunks_to_read([sent("a", 7)], 3600, keyed=True) == set()
    assert telemetry.chunks_to_read([sent("a", 7), sent("a", 8)], 3600, keyed=True) == set()
    assert telemetry.chunks_to_read([sent("a", 7), sent("b", 7)], 3600, keyed=True) == {("a", 0), ("b", 0)}
    assert telemetry.chunks_to_read([sent("a", 7), sent("a", 31), sent("b", 7)], 3600, keyed=True) == {
        ("a", 0), ("a", 1), ("b", 0)}
