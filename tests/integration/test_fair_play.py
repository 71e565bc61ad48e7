"""Fair play (contract v1.2) through the handlers, the table and the stream: seconds that have happened
by the server's clock, one device a ride, equipment on boards and results, and reviews of implausible
rides reaching ranks, results and the class board."""

import pytest

from .conftest import ADMIN, Api, process, racer_claims

START = "2026-11-22T10:00:00Z"
AT = "2026-11-22T10:01:00Z"  # a minute into the race


def calm(racer_id, seconds, cadence=80, resistance=50):
    return [{"racerId": racer_id, "second": s, "cadence": cadence, "resistance": resistance} for s in seconds]


def output(cadence, resistance):
    return (cadence + 35) * (resistance + 65) / 100


@pytest.fixture
def field(server):
    """A class and a race of 120 s starting at START, racers a (bike), t (trainer), v (virtual) joined."""
    api = Api()
    assert api("put_class", body={"name": "Hill climb"}, claims=ADMIN)[0] == 200
    race_id = api("create_race", body={"startsAt": START, "durationSeconds": 120}, claims=ADMIN)[1]["raceId"]
    for racer_id, equipment in (("a", "bike"), ("t", "trainer"), ("v", "virtual")):
        api("put_racer", {"racerId": racer_id}, body={"name": racer_id.upper()}, claims=ADMIN)
        status, joined = api("join_race", {"raceId": race_id, "racerId": racer_id}, body={"equipment": equipment},
                             claims=racer_claims(racer_id))
        assert (status, joined["equipment"]) == (200, equipment)
    return api, race_id


def post(api, race_id, samples, at=AT, device=None, claims=ADMIN):
    body = {"samples": samples, **({"device": device} if device else {})}
    return api("post_telemetry", {"raceId": race_id}, body=body, claims=claims, at=at)


def board(api, race_id, query=""):
    items = api("get_race_leaderboard", {"raceId": race_id},
                query={"limit": "100", **({"equipment": query} if query else {})})[1]["items"]
    return [(row["rank"], row["racerId"], row["equipment"], row["review"]) for row in items]


def test_a_second_counts_only_once_it_has_happened_by_the_servers_clock(field, server):
    api, race_id = field
    # Two hours before the start, a whole race of maximum seconds: every one is "not yet"
    status, body = post(api, race_id, calm("a", range(120), 300, 100), at="2026-11-22T08:00:00Z")
    assert status == 200 and body["accepted"] == 0 and len(body["rejected"]) == 120
    assert {r["reason"] for r in body["rejected"]} == {"not yet"}
    # A minute in: seconds up to 62 (60 and two of tolerance) count, later ones are "not yet"
    status, body = post(api, race_id, calm("a", range(70)))
    assert body["accepted"] == 63 and [r["second"] for r in body["rejected"]] == list(range(63, 70))
    assert {r["reason"] for r in body["rejected"]} == {"not yet"}
    process(server.read())
    assert api("get_race_leaderboard", {"raceId": race_id})[1]["items"][0]["lastSecond"] == 62
    # The same seconds once they have happened are accepted
    status, body = post(api, race_id, calm("a", range(70)), at="2026-11-22T10:01:10Z")
    assert (body["accepted"], body["duplicates"], body["rejected"]) == (7, 63, [])


def test_one_device_holds_a_ride_until_the_racer_joins_again_from_another(field):
    api, race_id = field
    mine = racer_claims("t")
    assert post(api, race_id, calm("t", [0, 1]), device="tab-1", claims=mine)[1]["accepted"] == 2
    # Another device's samples of the same ride are rejected; a body naming no device is not checked
    status, body = post(api, race_id, calm("t", [2, 3]), device="phone-2", claims=mine)
    assert body["accepted"] == 0 and {r["reason"] for r in body["rejected"]} == {"another device"}
    assert post(api, race_id, calm("t", [4]), claims=mine)[1]["accepted"] == 1
    # Joining again from the other device moves the ride there: the first one is now refused
    assert api("join_race", {"raceId": race_id, "racerId": "t"}, body={"equipment": "trainer", "device": "phone-2"},
               claims=mine)[0] == 200
    assert post(api, race_id, calm("t", [2, 3]), device="phone-2", claims=mine)[1]["accepted"] == 2
    assert [r["reason"] for r in post(api, race_id, calm("t", [5]), device="tab-1", claims=mine)[1]["rejected"]] == \
        ["another device"]
    # A bad device id is a 400 naming it
    status, body = post(api, race_id, calm("t", [6]), device="no spaces", claims=mine)
    assert status == 400 and "device" in body["message"]


def test_the_on_screen_bike_chosen_before_the_start_can_be_changed_until_a_second_can_count(field):
    api, race_id = field
    join = lambda equipment, at: api("join_race", {"raceId": race_id, "racerId": "v"}, body={"equipment": equipment},
                                     claims=racer_claims("v"), at=at)[1]["equipment"]
    # v joined on the on-screen bike; a minute before the start they connect a trainer: it is a trainer's ride
    assert join("trainer", "2026-11-22T09:59:00Z") == "trainer"
    assert join("virtual", "2026-11-22T09:59:57Z") == "virtual"
    assert board(api, race_id)[-1][1:3] == ("v", "virtual")
    # 2 s before the start its first second can count (the clocks' tolerance): virtual from then on
    assert join("trainer", "2026-11-22T09:59:58Z") == "virtual"
    assert join("trainer", AT) == "virtual"


def test_virtual_is_sticky_and_shown_on_the_board_results_and_real_only_board(field, server):
    api, race_id = field
    assert post(api, race_id, calm("a", range(10), 60) + calm("t", range(10), 70) + calm("v", range(10), 90))[1]["accepted"] == 30
    # The trainer rider switches to the on-screen bike: the ride is virtual from then on, even back on the trainer
    for equipment, shown in (("virtual", "virtual"), ("trainer", "virtual")):
        status, body = api("join_race", {"raceId": race_id, "racerId": "t"}, body={"equipment": equipment},
                           claims=racer_claims("t"), at=AT)
        assert (status, body["equipment"], body["lastSecond"]) == (200, shown, None)
    process(server.read())
    assert board(api, race_id) == [(1, "v", "virtual", None), (2, "t", "virtual", None), (3, "a", "bike", None)]
    assert board(api, race_id, "real") == [(1, "a", "bike", None)]
    assert api("get_race_leaderboard", {"raceId": race_id}, query={"equipment": "fake"})[0] == 400
    # Finished: virtual rides are ranked in their race, and never reach the class board
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    process(server.read())
    result = api("get_racer_results", {"racerId": "v"}, query={})[1]["items"][0]
    assert (result["rank"], result["equipment"], result["review"]) == (1, "virtual", None)
    classboard = api("get_class_leaderboard", query={"limit": "10"})[1]["items"]
    assert [row["racerId"] for row in classboard] == ["a"]


def test_an_implausible_ride_is_pending_as_soon_as_seen_and_off_the_class_board_until_cleared(field, server):
    api, race_id = field
    # t spins 300 rpm at 0 %: pending as its first chunk is seen (30 s: cadence held), whatever its rank
    post(api, race_id, calm("t", range(30), 300, 0) + calm("a", range(60), 80, 50))
    process(server.read())
    assert board(api, race_id)[:2] == [(1, "a", "bike", None), (2, "t", "trainer", "pending")]
    status, listed = api("get_reviews", query={"state": "pending", "limit": "10"}, claims=ADMIN)
    assert status == 200 and [(i["racerId"], i["state"], i["equipment"], i["rules"]) for i in listed["items"]] == [
        ("t", "pending", "trainer", ["cadence-held"])]
    # and goes on at 100 % for a second chunk (a pending ride's rules are widened at the finish)
    post(api, race_id, calm("t", range(30, 60), 300, 100))
    process(server.read())
    # Not an admin: 403; a racer sees why on their own results
    assert api("get_reviews", query={"state": "pending"}, claims=racer_claims("t"))[0] == 403
    # Finished: the whole ride is checked (a minute of output over 250 too); t ranks first in the race
    # but is not on the class board while pending
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    process(server.read())
    result = api("get_racer_results", {"racerId": "t"}, query={})[1]["items"][0]
    assert (result["rank"], result["review"], result["rules"]) == (1, "pending", ["cadence-held", "output-held"])
    assert [row["racerId"] for row in api("get_class_leaderboard", query={"limit": "10"})[1]["items"]] == ["a"]
    # The review as listed carries the final score
    listed = api("get_reviews", query={"state": "pending", "limit": "10"}, claims=ADMIN)[1]["items"]
    assert listed[0]["score"] == round(30 * output(300, 0) + 30 * output(300, 100), 4)
    # An admin clears it: the class board takes it (within the stream's next batch)
    status, review = api("review_ride", {"raceId": race_id, "racerId": "t"}, body={"decision": "clear", "note": "Real trainer"},
                         claims=ADMIN)
    assert (status, review["state"], review["note"]) == (200, "cleared", "Real trainer")
    process(server.read())
    assert [row["racerId"] for row in api("get_class_leaderboard", query={"limit": "10"})[1]["items"]] == ["t", "a"]
    assert api("get_reviews", query={"state": "pending"}, claims=ADMIN)[1]["items"] == []
    assert [i["racerId"] for i in api("get_reviews", query={"state": "cleared"}, claims=ADMIN)[1]["items"]] == ["t"]
    # The same decision again changes nothing
    assert api("review_ride", {"raceId": race_id, "racerId": "t"}, body={"decision": "clear"}, claims=ADMIN)[1] == review


def test_the_gap_trick_a_late_join_with_backfill_and_alternating_cadence_are_pending_and_on_no_class_board(field, server):
    # Before contract v1.3 each of these rides was never reviewed: the rules looked at runs of seconds
    # sent, so leaving one second in two, three or ten out hid 300 rpm at 100 % (twice the most a
    # continuous ride holds unflagged), and cadence alternating 20 and 99 rpm never rose 80 at once.
    api, race_id = field
    for racer_id in ("gap2", "gap3", "gap10", "late", "swing"):
        api("put_racer", {"racerId": racer_id}, body={"name": racer_id}, claims=ADMIN)
    for racer_id in ("gap2", "gap3", "gap10", "swing"):
        assert api("join_race", {"raceId": race_id, "racerId": racer_id}, body={}, claims=racer_claims(racer_id))[0] == 200
    maximum = calm("x", range(120), 300, 100)
    for racer_id, left_out in (("gap2", 2), ("gap3", 3), ("gap10", 10)):
        gapped = [{**sample, "racerId": racer_id} for sample in maximum if sample["second"] % left_out != left_out - 1]
        for second in range(0, 120, 5):  # as a bike sends them, a few seconds at a time, as they happen
            post(api, race_id, [sample for sample in gapped if second <= sample["second"] < second + 5],
                 at=f"2026-11-22T10:{(second + 5) // 60:02d}:{(second + 5) % 60:02d}Z", claims=racer_claims(racer_id))
    post(api, race_id, [{**sample, "cadence": 20 if sample["second"] % 2 else 99, "racerId": "swing", "resistance": 50}
                        for sample in maximum], at="2026-11-22T10:02:00Z", claims=racer_claims("swing"))
    # Joining 100 s in and sending the seconds before it at once (one in ten left out)
    assert api("join_race", {"raceId": race_id, "racerId": "late"}, body={}, claims=racer_claims("late"),
               at="2026-11-22T10:01:40Z")[0] == 200
    backfill = [{**sample, "racerId": "late"} for sample in maximum if sample["second"] % 10 != 9 and sample["second"] <= 100]
    assert post(api, race_id, backfill, at="2026-11-22T10:01:40Z", claims=racer_claims("late"))[1]["accepted"] == len(backfill)
    post(api, race_id, calm("a", range(120), 85, 60))
    process(server.read())
    cheats = {"gap2", "gap3", "gap10", "late", "swing"}
    # judged as they arrive: each is pending before the finish
    assert {racer_id for _, racer_id, _, review in board(api, race_id) if review == "pending"} == cheats
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    process(server.read())
    for racer_id in cheats:
        result = api("get_racer_results", {"racerId": racer_id}, query={})[1]["items"][0]
        assert (racer_id, result["review"], result["rules"]) == (
            racer_id, "pending", ["cadence-swing"] if racer_id == "swing" else ["cadence-held", "output-held"])
    assert [row["racerId"] for row in api("get_class_leaderboard", query={"limit": "10"})[1]["items"]] == ["a"]


def test_disqualifying_a_ride_removes_its_rank_and_its_best_and_another_decision_replaces_it(field, server):
    api, race_id = field
    post(api, race_id, calm("a", range(60), 90, 60) + calm("t", range(60), 80, 50) + calm("v", range(60), 70, 50))
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    process(server.read())
    assert board(api, race_id) == [(1, "a", "bike", None), (2, "t", "trainer", None), (3, "v", "virtual", None)]
    assert [row["racerId"] for row in api("get_class_leaderboard", query={"limit": "10"})[1]["items"]] == ["a", "t"]
    # An admin disqualifies a ride no rule flagged: it has no rank, comes last, and leaves the class board
    status, review = api("review_ride", {"raceId": race_id, "racerId": "a"}, body={"decision": "disqualify", "note": "Two riders"},
                         claims=ADMIN)
    assert (status, review["state"], review["rules"]) == (200, "disqualified", [])
    process(server.read())
    assert board(api, race_id) == [(1, "t", "trainer", None), (2, "v", "virtual", None), (None, "a", "bike", "disqualified")]
    assert [(i["raceId"], i["rank"], i["review"], i["note"])
            for i in api("get_racer_results", {"racerId": "a"}, query={})[1]["items"]] == [(race_id, None, "disqualified", "Two riders")]
    assert api("get_racer_results", {"racerId": "t"}, query={})[1]["items"][0]["rank"] == 1
    assert [row["racerId"] for row in api("get_class_leaderboard", query={"limit": "10"})[1]["items"]] == ["t"]
    # Cleared after all: back in its place and on the class board; a redelivered record changes nothing
    api("review_ride", {"raceId": race_id, "racerId": "a"}, body={"decision": "clear"}, claims=ADMIN)
    records = server.read()
    process(records)
    process(records)
    assert board(api, race_id) == [(1, "a", "bike", "cleared"), (2, "t", "trainer", None), (3, "v", "virtual", None)]
    assert [row["racerId"] for row in api("get_class_leaderboard", query={"limit": "10"})[1]["items"]] == ["a", "t"]
    assert [i["racerId"] for i in api("get_reviews", query={"state": "disqualified"}, claims=ADMIN)[1]["items"]] == []


def test_a_ride_with_no_second_is_on_its_race_board_and_on_no_class_board(field, server):
    # Given a racer who joined on a trainer and never sent a second, beside one who rode
    api, race_id = field
    assert post(api, race_id, calm("a", range(10)))[1]["accepted"] == 10
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    process(server.read())
    # Then the race board lists every joined racer, 0 for the ones who never rode (the contract)
    assert [(rank, racer_id) for rank, racer_id, _, _ in board(api, race_id)] == [(1, "a"), (2, "t"), (3, "v")]
    assert api("get_racer_results", {"racerId": "t"}, query={})[1]["items"][0]["score"] == 0
    # But a ride with no second counts for no class board and no best (issue 51: t sat there with 0)
    assert [row["racerId"] for row in api("get_class_leaderboard", query={"limit": "10"})[1]["items"]] == ["a"]
    from alleycat.storage import racers

    assert racers.bests_of("t") == []


def test_review_errors_are_4xx_with_a_message(field):
    api, race_id = field
    status, body = api("review_ride", {"raceId": race_id, "racerId": "nobody"}, body={"decision": "clear"}, claims=ADMIN)
    assert status == 404 and "nobody" in body["message"]
    assert api("review_ride", {"raceId": race_id, "racerId": "a"}, body={"decision": "clear"}, claims=racer_claims("a"))[0] == 403
    status, body = api("review_ride", {"raceId": race_id, "racerId": "a"}, body={"decision": "ban"}, claims=ADMIN)
    assert status == 400 and "decision" in body["message"]
    status, body = api("get_reviews", query={"state": "waiting"}, claims=ADMIN)
    assert status == 400 and "state" in body["message"]
    status, body = api("join_race", {"raceId": race_id, "racerId": "a"}, body={"equipment": "rocket"}, claims=ADMIN)
    assert status == 400 and "equipment" in body["message"]


def test_the_reviews_list_is_one_query_a_page_oldest_pending_first(field, server):
    api, race_id = field
    for n, racer_id in enumerate(("v", "t", "a")):
        post(api, race_id, calm(racer_id, range(n * 12, n * 12 + 12), 300, 100), at="2026-11-22T10:01:59Z")
        process(server.read())
    first = api("get_reviews", query={"state": "pending", "limit": "2"}, claims=ADMIN)[1]
    second = api("get_reviews", query={"state": "pending", "limit": "2", "nextToken": first["nextToken"]}, claims=ADMIN)[1]
    assert [i["racerId"] for i in first["items"] + second["items"]] == ["v", "t", "a"] and second["nextToken"] is None
    assert api("get_reviews", query={"state": "pending", "nextToken": "forged"}, claims=ADMIN)[0] == 400


def test_a_race_from_before_v1_2_takes_reviews_and_equipment_where_its_rows_had_no_place_for_them(field, server):
    from alleycat.rules.board import Standing
    from alleycat.storage import dynamo, races
    from alleycat.storage import entities as e

    api, race_id = field
    # Given rows stored as before v1.2: a board standing [score, lastSecond, name], an entry with no equipment
    shard = e.RaceBoard.shard_of("a")
    dynamo.send("update_item", Key=dynamo.key_of(e.RaceBoard(race_id, shard)), UpdateExpression="SET standings.a = :old",
                ExpressionAttributeValues=dynamo.values(old=[7, 3, "A"]))
    dynamo.send("update_item", Key=dynamo.key_from(e.keys.ENTRY, raceId=race_id, racerId="a"), UpdateExpression="REMOVE equipment")
    # When its review is set / Then the standing is whole, the review in its place
    races.set_standing_review(race_id, Standing("a", 7, 3, "A", "bike", "pending"))
    assert dynamo.get(e.RaceBoard, True, raceId=race_id, shard=shard).standings["a"] == [7, 3, "A", "bike", "pending"]
    # And joining again on the on-screen bike works (the missing equipment was a bike)
    status, body = api("join_race", {"raceId": race_id, "racerId": "a"}, body={"equipment": "virtual"}, claims=ADMIN)
    assert (status, body["equipment"]) == (200, "virtual")
