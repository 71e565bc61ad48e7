"""GET /races/{raceId}/replay against DynamoDB Local, the race settled by the stream processor as in `make
local`: a 100-racer race of 300 s read back in at most two storage reads, each racer's score after every
second the sum of the outputs their history shows up to it; 409 until the race is settled."""

from decimal import ROUND_HALF_UP, Decimal

from .conftest import ADMIN, process

RACERS, SECONDS = 100, 300
CHUNK = 30  # a batch holds 30 s of 33 racers: under the contract's 1,000 samples


def effort(racer: int, second: int) -> tuple[int, int]:
    """(cadence, resistance) of a racer's second: every racer a pace of their own, changing each second."""
    return 40 + (racer * 7 + second * 13) % 50, 33 + (racer * 11 + second * 3) % 50


def output(cadence, resistance) -> Decimal:
    """The contract's output of one second, to four places."""
    return ((Decimal(str(cadence)) + 35) * (Decimal(str(resistance)) + 65) / 100).quantize(Decimal("0.0001"), ROUND_HALF_UP)


def tenth(score: Decimal) -> float:
    return float(score.quantize(Decimal("0.1"), ROUND_HALF_UP))


def drain(server):
    while records := server.read():
        assert process(records) == {"batchItemFailures": []}


def ride(api, server, racers: int, seconds: int) -> tuple[str, list[str]]:
    """A finished race of ``racers`` who rode every one of its ``seconds``, its stream handled up to the finish."""
    assert api("put_class", body={"name": "Hill climb"}, claims=ADMIN)[0] == 200
    status, race = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": seconds}, claims=ADMIN)
    assert status == 201
    race_id = race["raceId"]
    racer_ids = [f"racer-{n:03d}" for n in range(racers)]
    for racer_id in racer_ids:
        assert api("put_racer", {"racerId": racer_id}, body={"name": racer_id.title()}, claims=ADMIN)[0] == 200
        assert api("join_race", {"raceId": race_id, "racerId": racer_id}, claims=ADMIN)[0] == 200
    for first in range(0, seconds, CHUNK):
        for group in range(0, racers, 33):
            samples = [{"racerId": racer_ids[n], "second": second, "cadence": effort(n, second)[0],
                        "resistance": effort(n, second)[1]}
                       for n in range(group, min(group + 33, racers)) for second in range(first, first + CHUNK)]
            status, body = api("post_telemetry", {"raceId": race_id}, body={"samples": samples}, claims=ADMIN)
            assert (status, body["accepted"]) == (200, len(samples)), body
    drain(server)
    return race_id, racer_ids


def test_a_settled_race_of_100_racers_is_read_in_at_most_two_requests_and_equals_their_histories(api, server, chunk_path,
                                                                                                   request_counter):
    # (30,000 seconds posted through the chunks: the settlement reads the racers' chunks however their seconds were
    # counted, and through the fan-in the same post costs 3 times as long; the fan-in's settlement: the rename below)
    race_id, racer_ids = ride(api, server, RACERS, SECONDS)
    # Given the race, open: no replay yet
    status, body = api("get_race_replay", {"raceId": race_id})
    assert status == 409 and "not finished" in body["message"]
    # and finished, its settlement not yet done by the stream
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    status, body = api("get_race_replay", {"raceId": race_id})
    assert status == 409 and "being made final" in body["message"]
    # When the stream settles it and the replay is read
    drain(server)
    request_counter.clear()
    status, replay = api("get_race_replay", {"raceId": race_id})
    # Then it takes at most two storage reads (one Query, a second page only past 1 MB)
    assert status == 200, replay
    assert 1 <= len(request_counter) <= 2 and set(request_counter) == {"Query"}, request_counter
    # And it is the race, its racers in board order with their ranks
    assert (replay["raceId"], replay["startsAt"], replay["durationSeconds"], replay["step"]) == \
        (race_id, "2026-11-22T10:00:00Z", SECONDS, 1)
    board = api("get_race_leaderboard", {"raceId": race_id}, query={"limit": "1000"})[1]["items"]
    assert replay["racers"] == [{"racerId": row["racerId"], "name": row["name"], "equipment": row["equipment"],
                                 "rank": row["rank"]} for row in board]
    # And every racer's score after each second is the sum of the outputs their history shows up to it
    for racer, scores in zip(replay["racers"], replay["scores"], strict=True):
        status, history = api("get_racer_history", {"racerId": racer["racerId"]}, query={"raceId": race_id})
        assert status == 200
        by_second = {row[0]: output(row[1], row[2]) for row in history["races"][0]["samples"]}
        total, expected = Decimal(0), []
        for second in range(SECONDS):
            total += by_second.get(second, Decimal(0))
            expected.append(tenth(total))
        assert scores == expected, racer["racerId"]


def test_a_rename_after_the_race_shows_in_its_replay(api, server):
    race_id, racer_ids = ride(api, server, 8, 60)
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    drain(server)
    before = api("get_race_replay", {"raceId": race_id})[1]
    # When a racer renames themselves after the race
    assert api("put_racer", {"racerId": racer_ids[7]}, body={"name": "Seventh Renamed"}, claims=ADMIN)[0] == 200
    drain(server)
    # Then the replay names them so, their scores unchanged
    after = api("get_race_replay", {"raceId": race_id})[1]
    named = {racer["racerId"]: racer["name"] for racer in after["racers"]}
    assert named[racer_ids[7]] == "Seventh Renamed"
    assert after["scores"] == before["scores"]


def test_an_unknown_race_has_no_replay(api):
    status, body = api("get_race_replay", {"raceId": "01JD5Z6Q8X0000000000000099"})
    assert status == 404 and "does not exist" in body["message"]


def test_a_racer_whose_history_changed_after_the_settlement_has_their_row_written_again(api, server):
    from alleycat.storage import replays

    race_id, racer_ids = ride(api, server, 8, 60)
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    drain(server)
    before = api("get_race_replay", {"raceId": race_id})[1]
    # When a late record's amendment writes a racer's row again (stream.settlement.amend)
    replays.set_rows(race_id, len(racer_ids), {racer_ids[3]: list(range(0, 600, 10))})
    # Then the replay shows that row, every other as it was
    after = api("get_race_replay", {"raceId": race_id})[1]
    rows = {racer["racerId"]: scores for racer, scores in zip(after["racers"], after["scores"], strict=True)}
    assert rows[racer_ids[3]] == [tenths / 10 for tenths in range(0, 600, 10)]
    assert {racer: scores for racer, scores in rows.items() if racer != racer_ids[3]} == \
        {racer["racerId"]: scores for racer, scores in zip(before["racers"], before["scores"], strict=True)
         if racer["racerId"] != racer_ids[3]}
