"""Power classes (contract v1.3) through the handlers, the table and the stream: the class's metric, fixed
once it has races; a power race ranks the sums of measured watts (joules) on its board, the results, the
class board and the replay; a sample without power is ``no power``; the on-screen bike cannot join."""

import pytest

from .conftest import ADMIN, Api, process, racer_claims

START = "2026-11-22T10:00:00Z"
AT = "2026-11-22T10:01:00Z"  # a minute into the race


def ridden(racer_id, seconds, watts, cadence=90, resistance=50, **more):
    return [{"racerId": racer_id, "second": s, "cadence": cadence, "resistance": resistance, "power": watts, **more}
            for s in seconds]


@pytest.fixture
def power_race(server):
    """A power class with a race of 120 s starting at START; racers b and v (bikes) and t (a trainer) joined."""
    api = Api()
    status, klass = api("put_class", {"classId": "watts"}, body={"name": "Watts", "metric": "power"}, claims=ADMIN)
    assert (status, klass) == (200, {"classId": "watts", "name": "Watts", "description": "", "metric": "power"})
    race_id = api("create_race", {"classId": "watts"}, body={"startsAt": START, "durationSeconds": 120},
                  claims=ADMIN)[1]["raceId"]
    for racer_id, equipment in (("b", "bike"), ("t", "trainer"), ("v", "bike")):
        api("put_racer", {"racerId": racer_id}, body={"name": racer_id.upper()}, claims=ADMIN)
        assert api("join_race", {"raceId": race_id, "racerId": racer_id}, body={"equipment": equipment},
                   claims=racer_claims(racer_id))[0] == 200
    return api, race_id


def post(api, race_id, samples, at=AT):
    return api("post_telemetry", {"raceId": race_id}, body={"samples": samples}, claims=ADMIN, at=at)


def test_a_power_race_ranks_the_sums_of_watts_on_its_board_results_class_board_and_replay(power_race, server):
    api, race_id = power_race
    # t holds 250 W for a minute at a low output; b 180 W at a high output; v's seconds carry no power
    assert post(api, race_id, ridden("t", range(60), 250, cadence=60, resistance=10)) == (
        200, {"accepted": 60, "duplicates": 0, "rejected": []})
    assert post(api, race_id, ridden("b", range(60), 180, cadence=110, resistance=90)[:59])[1]["accepted"] == 59
    status, body = post(api, race_id, [{"racerId": "v", "second": 1, "cadence": 90, "resistance": 50},
                                       {"racerId": "v", "second": 2, "cadence": 90, "resistance": 50, "power": None},
                                       *ridden("v", [3], 200)])
    assert (status, body["accepted"]) == (200, 1)
    assert body["rejected"] == [{"racerId": "v", "second": 1, "reason": "no power"},
                                {"racerId": "v", "second": 2, "reason": "no power"}]
    process(server.read())
    board = api("get_race_leaderboard", {"raceId": race_id}, query={"limit": "10"})[1]["items"]
    assert [(row["racerId"], row["score"], row["lastSecond"]) for row in board] == [
        ("t", 15000, 59), ("b", 10620, 58), ("v", 200, 3)]
    # The history holds the watts in its 6th column
    history = api("get_racer_history", {"racerId": "t"}, query={"raceId": race_id})[1]
    assert history["races"][0]["samples"][0] == [0, 60, 10, 71.25, None, 250]
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    process(server.read())
    results = api("get_racer_results", {"racerId": "b"}, query={})[1]["items"][0]
    assert (results["rank"], results["score"]) == (2, 10620)
    status, klass_board = api("get_class_leaderboard", {"classId": "watts"}, query={"limit": "10"})
    assert klass_board["metric"] == "power"
    assert [(row["racerId"], row["bestScore"]) for row in klass_board["items"]] == [("t", 15000), ("b", 10620), ("v", 200)]
    process(server.read())
    replay = api("get_race_replay", {"raceId": race_id})[1]
    scores = dict(zip([racer["racerId"] for racer in replay["racers"]], replay["scores"], strict=True))
    assert scores["t"][:3] == [250, 500, 750] and scores["t"][-1] == 15000
    assert scores["b"][58] == 10620 and scores["v"][3] == 200


def test_the_on_screen_bike_cannot_join_a_power_class_and_a_joined_racer_cannot_move_to_it(power_race):
    api, race_id = power_race
    api("put_racer", {"racerId": "s"}, body={"name": "S"}, claims=ADMIN)
    status, body = api("join_race", {"raceId": race_id, "racerId": "s"}, body={"equipment": "virtual"},
                       claims=racer_claims("s"))
    assert status == 409 and "on-screen bike cannot ride a power class" in body["message"]
    status, body = api("join_race", {"raceId": race_id, "racerId": "t"}, body={"equipment": "virtual"},
                       claims=racer_claims("t"), at="2026-11-22T09:00:00Z")
    assert status == 409
    assert api("get_racer_results", {"racerId": "s"}, query={})[1]["items"] == []
    assert api("join_race", {"raceId": race_id, "racerId": "t"}, body={"equipment": "trainer"},
               claims=racer_claims("t"))[1]["equipment"] == "trainer"


def test_a_class_metric_is_fixed_once_it_has_races_and_its_name_still_changes(api):
    # Before any race the metric changes freely
    for metric in ("power", "output", "power"):
        assert api("put_class", {"classId": "c"}, body={"name": "C", "metric": metric}, claims=ADMIN)[1]["metric"] == metric
    assert api("put_class", {"classId": "d"}, body={"name": "D"}, claims=ADMIN)[1]["metric"] == "output"
    assert api("create_race", {"classId": "c"}, body={"startsAt": START}, claims=ADMIN)[0] == 201
    # Then another metric is 409 (and nothing changes), the same metric renames it, and the mark stays
    status, body = api("put_class", {"classId": "c"}, body={"name": "C2", "metric": "output"}, claims=ADMIN)
    assert status == 409 and "metric cannot change" in body["message"]
    assert api("put_class", {"classId": "c"}, body={"name": "C3", "metric": "power"}, claims=ADMIN) == (
        200, {"classId": "c", "name": "C3", "description": "", "metric": "power"})
    assert api("put_class", {"classId": "c"}, body={"name": "C4"}, claims=ADMIN)[0] == 409
    listed = api("get_classes", query={"limit": "10"})[1]["items"]
    assert [(c["classId"], c["name"], c["metric"]) for c in listed] == [("c", "C3", "power"), ("d", "D", "output")]
    # An output class with races keeps its metric too (a class from before v1.3 has none stored: output)
    assert api("create_race", {"classId": "d"}, body={"startsAt": START}, claims=ADMIN)[0] == 201
    assert api("put_class", {"classId": "d"}, body={"name": "D", "metric": "power"}, claims=ADMIN)[0] == 409
    assert api("put_class", {"classId": "d"}, body={"name": "D"}, claims=ADMIN)[0] == 200


@pytest.mark.parametrize("power", [3001, -1, 12.5, "200", True])
def test_power_out_of_range_or_not_whole_watts_is_400_and_writes_nothing(power_race, power):
    api, race_id = power_race
    status, body = post(api, race_id, ridden("t", [1], 200) + ridden("t", [2], power))
    assert status == 400 and "power" in body["message"]
    assert api("get_racer_history", {"racerId": "t"}, query={"raceId": race_id})[1]["races"][0]["samples"] == []
