"""A whole race on a table that throttles 10% of requests: nothing lost, nothing counted twice."""

from collections import defaultdict
from decimal import Decimal

from alleycat.rules.scores import number, output

from .conftest import ADMIN, Api, process
from .faults import Throttle

RACERS = ("r1", "r2", "r3", "r4")
DURATION = 120


def call(api, *args, **kwargs):
    """A client that retries what the API asks it to retry (503), as the simulator does."""
    for _ in range(20):
        status, body = api(*args, **kwargs)
        if status != 503:
            return status, body
    raise AssertionError(f"{args[0]} answered 503 twenty times")


def drain(stream):
    """The event source mapping: deliver, and on a reported failure deliver again from that record."""
    pending, rounds = stream.read(), 0
    while pending:
        rounds += 1
        assert rounds < 200, "the stream never drained"
        failures = process(pending)["batchItemFailures"]
        if failures:
            first = min(int(f["itemIdentifier"]) for f in failures)
            pending = [r for r in pending if int(r["dynamodb"]["SequenceNumber"]) >= first]
        else:
            pending = []
        pending += stream.read()


def test_a_race_on_a_throttled_table_ends_exactly_as_an_independent_ledger_says(server, clock):
    api = Api()
    throttle = Throttle(rate=0.10)
    try:
        # Given a class, four racers and a race, created through a throttled table
        call(api, "put_class", body={"name": "Hill climb"}, claims=ADMIN)
        race_id = call(api, "create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": DURATION},
                       claims=ADMIN)[1]["raceId"]
        for racer_id in RACERS:
            call(api, "put_racer", {"racerId": racer_id}, body={"name": racer_id.upper()}, claims=ADMIN)
            assert call(api, "join_race", {"raceId": race_id, "racerId": racer_id}, claims=ADMIN)[0] == 200
        # When telemetry arrives in overlapping windows (every batch re-sends the previous 5 seconds)
        ledger = {}
        for start in range(0, DURATION, 10):
            batch = [{"racerId": racer_id, "second": second,
                      "cadence": 40 + (second * 7 + n * 13) % 50, "resistance": 35 + (second * 3 + n) % 40}
                     for n, racer_id in enumerate(RACERS) for second in range(max(0, start - 5), start + 10)]
            # each batch with its Idempotency-Key, as the simulator sends it: a retry of a batch
            # a 503 cut short answers what the first attempt did
            status, counts = call(api, "post_telemetry", {"raceId": race_id}, body={"samples": batch}, claims=ADMIN,
                                  headers={"Idempotency-Key": f"batch-{start}"})
            assert status == 200
            fresh = [s for s in batch if (s["racerId"], s["second"]) not in ledger]
            assert (counts["accepted"], counts["duplicates"]) == (len(fresh), len(batch) - len(fresh))
            for s in fresh:
                ledger[(s["racerId"], s["second"])] = (s["cadence"], s["resistance"])
            drain(server)
        # and the race is finished and settled
        assert call(api, "finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
        drain(server)
    finally:
        throttle.close()
    assert throttle.injected > 20  # the table really was throttled
    assert len(clock.slept) >= throttle.injected  # and every throttled request waited before its retry

    # Then every score, rank, best and class-board row equals the ledger's
    scores = defaultdict(Decimal)
    for (racer_id, _), (cadence, resistance) in ledger.items():
        scores[racer_id] += output(cadence, resistance)
    expected = sorted(((number(score), racer_id) for racer_id, score in scores.items()), key=lambda r: (-r[0], r[1]))
    board = api("get_race_leaderboard", {"raceId": race_id}, query={"limit": "10"})[1]
    assert [(row["racerId"], row["score"], row["lastSecond"], row["rank"]) for row in board["items"]] == \
        [(racer_id, score, DURATION - 1, rank) for rank, (score, racer_id) in enumerate(expected, start=1)]
    for rank, (score, racer_id) in enumerate(expected, start=1):
        result = api("get_racer_results", {"racerId": racer_id}, query={})[1]["items"][0]
        assert (result["score"], result["rank"], result["status"]) == (score, rank, "finished")
        history = api("get_racer_history", {"racerId": racer_id}, query={"raceId": race_id})[1]["races"][0]["samples"]
        assert [(row[0], row[1], row[2]) for row in history] == \
            [(second, *ledger[(racer_id, second)]) for second in range(DURATION)]
    classboard = api("get_class_leaderboard", query={"limit": "10"})[1]["items"]
    assert [(row["racerId"], row["bestScore"], row["rank"]) for row in classboard] == \
        [(racer_id, score, rank) for rank, (score, racer_id) in enumerate(expected, start=1)]
