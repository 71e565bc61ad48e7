"""Each handler against DynamoDB Local, one behaviour per test (Given / When / Then)."""

import pytest

from .conftest import ADMIN, process, racer_claims


def test_put_racer_creates_then_renames(api):
    status, body = api("put_racer", {"racerId": "racer-1"}, body={"name": "One"}, claims=racer_claims("racer-1"))
    assert (status, body) == (200, {"racerId": "racer-1", "name": "One"})
    api("put_racer", {"racerId": "racer-1"}, body={"name": "Uno"}, claims=racer_claims("racer-1"))
    assert api("get_racer_results", {"racerId": "racer-1"}, query={})[1]["name"] == "Uno"


@pytest.mark.parametrize("body, fragment", [
    ("{not json", "not valid JSON"),
    ({}, "name"),
    ({"name": ""}, "name"),
    ({"name": "x" * 81}, "name"),
    ({"name": 5}, "name"),
])
def test_put_racer_rejects_bad_bodies_with_400(api, body, fragment):
    status, response = api("put_racer", body=body, claims=racer_claims("racer-1"))
    assert status == 400 and fragment in response["message"]


def test_put_racer_for_someone_else_is_403_and_anonymous_is_401(api):
    assert api("put_racer", {"racerId": "racer-2"}, body={"name": "x"}, claims=racer_claims("racer-1"))[0] == 403
    assert api("put_racer", body={"name": "x"}, claims=None)[0] == 401
    assert api("put_racer", {"racerId": "racer-2"}, body={"name": "x"}, claims=ADMIN)[0] == 200


def test_body_over_256_kib_is_413(api):
    assert api("put_racer", body='{"name": "' + "x" * (256 * 1024) + '"}', claims=racer_claims("racer-1"))[0] == 413


def test_invalid_ids_are_400(api):
    assert api("get_racer_results", {"racerId": "bad id!"}, query={})[0] == 400
    assert api("get_class_races", {"classId": "x" * 65}, query={})[0] == 400


def test_put_class_is_admin_only(api):
    assert api("put_class", body={"name": "Hill"}, claims=racer_claims("racer-1"))[0] == 403
    status, body = api("put_class", body={"name": "Hill", "description": "d" * 500}, claims=ADMIN)
    assert status == 200 and body["description"] == "d" * 500
    assert api("put_class", body={"name": "Hill", "description": "d" * 501}, claims=ADMIN)[0] == 400


def test_create_race_defaults_and_validates(api, race):
    assert race["status"] == "open" and race["durationSeconds"] == 300 and race["classId"] == "hill-climb"
    assert race["startsAt"] == "2026-11-22T10:00:00Z" and len(race["raceId"]) == 26
    for bad in ({"startsAt": "yesterday"}, {"startsAt": "2026-11-22T10:00:00+01:00"},
                {"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 59},
                {"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 3601},
                {"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 1.5}):
        assert api("create_race", body=bad, claims=ADMIN)[0] == 400, bad
    assert api("create_race", {"classId": "nope"}, body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN)[0] == 404


def test_race_ids_sort_by_creation_time(api, race):
    later = api("create_race", body={"startsAt": "2026-11-22T09:00:00Z"}, claims=ADMIN)[1]
    assert later["raceId"] > race["raceId"]


def test_create_race_with_the_same_idempotency_key_creates_one_race(api, race):
    import json
    from pathlib import Path

    from local import handlers
    from local.events import with_header
    event = with_header(json.loads(Path("events/create_race.json").read_text()), "Idempotency-Key", "abc-1")
    first = json.loads(handlers.invoke("create_race", event)["body"])
    second = json.loads(handlers.invoke("create_race", event)["body"])
    assert first["raceId"] == second["raceId"]
    races = api("get_class_races", query={"limit": "100"})[1]["items"]
    assert [r["raceId"] for r in races].count(first["raceId"]) == 1 and len(races) == 2


def test_an_idempotency_key_reused_with_another_body_is_422_and_the_first_race_stands(api, race):
    key = {"Idempotency-Key": "abc-2"}
    status, first = api("create_race", body={"startsAt": "2026-11-22T11:00:00Z"}, claims=ADMIN, headers=key)
    assert status == 201
    # the same body as normalised (no seconds, the default duration said) is a retry: the first race
    for same in ({"startsAt": "2026-11-22T11:00Z"}, {"startsAt": "2026-11-22T11:00:00.5Z", "durationSeconds": 300}):
        assert api("create_race", body=same, claims=ADMIN, headers=key) == (201, first), same
    for other in ({"startsAt": "2026-11-22T11:00:01Z"}, {"startsAt": "2026-11-22T11:00:00Z", "durationSeconds": 301}):
        status, body = api("create_race", body=other, claims=ADMIN, headers=key)
        assert status == 422 and body["message"] == (
            f"this Idempotency-Key created race {first['raceId']} (2026-11-22T11:00:00Z, 300 seconds) with a different "
            "body: use a new key for another race"), other
    races = api("get_class_races", query={"limit": "100"})[1]["items"]
    assert sorted(r["raceId"] for r in races) == sorted([race["raceId"], first["raceId"]])
    assert api("get_race", {"raceId": first["raceId"]})[1]["startsAt"] == "2026-11-22T11:00:00Z"
    # the key names a request of this class: another class's race with it is a race of its own
    assert api("put_class", {"classId": "sprint"}, body={"name": "Sprint"}, claims=ADMIN)[0] == 200
    status, sprint = api("create_race", {"classId": "sprint"}, body={"startsAt": "2026-11-22T12:00:00Z"}, claims=ADMIN,
                         headers=key)
    assert status == 201 and sprint["classId"] == "sprint" and sprint["raceId"] != first["raceId"]


@pytest.mark.parametrize("starts_at", ["0001-01-01T00:00:00Z", "1999-12-31T23:59:59Z", "2100-01-01T00:00:00Z",
                                       "9999-12-31T23:59:59Z"])
def test_a_race_starting_outside_2000_to_2099_is_400(api, race, starts_at):
    status, body = api("create_race", body={"startsAt": starts_at}, claims=ADMIN, at="1999-12-31T00:00:00Z")
    assert (status, body) == (400, {"message": "startsAt must be a time from 2000 to 2099, e.g. 2026-11-22T10:00:00Z"})


def test_a_race_that_would_already_be_over_by_the_servers_clock_is_400(api, race):
    # Given a request that reaches the API at 10:00:00 (the server's clock, whatever the caller's says)
    at = "2026-11-25T10:00:00Z"
    status, body = api("create_race", body={"startsAt": "2026-11-25T09:54:59Z"}, claims=ADMIN, at=at)
    assert (status, body) == (400, {"message": "the race would already be over: startsAt 2026-11-25T09:54:59Z plus "
                                               "durationSeconds 300 ends at 2026-11-25T09:59:59Z, before now "
                                               "(2026-11-25T10:00:00Z)"})
    status, body = api("create_race", body={"startsAt": "2026-11-25T09:00:00Z", "durationSeconds": 3599}, claims=ADMIN,
                       at=at)
    assert status == 400 and "startsAt" in body["message"]
    # while one ending at that moment, or started and ending later (live at once), is made
    for starts_at, duration in (("2026-11-25T09:55:00Z", 300), ("2026-11-25T09:00:00Z", 3600)):
        status, made = api("create_race", body={"startsAt": starts_at, "durationSeconds": duration}, claims=ADMIN, at=at)
        assert (status, made["startsAt"], made["status"]) == (201, starts_at, "open")
    assert len(api("get_class_races", query={"limit": "100"})[1]["items"]) == 3


def test_join_is_idempotent_and_counts_once(api, race, server):
    rid = race["raceId"]
    server.read()
    for _ in range(2):
        status, body = api("join_race", {"raceId": rid, "racerId": "racer-1"}, claims=racer_claims("racer-1"))
        assert (status, body) == (200, {"raceId": rid, "racerId": "racer-1", "name": "Racer One",
                                        "score": 0, "lastSecond": None, "equipment": "trainer"})
    # a join writes nothing of the race: the stream counts it, once however often its record comes
    assert api("get_race", {"raceId": rid})[1]["racerCount"] == 0
    records = server.read()
    for _ in range(2):
        process(records)
    assert api("get_race", {"raceId": rid})[1]["racerCount"] == 1
    board = api("get_race_leaderboard", {"raceId": rid})[1]["items"]
    assert [(row["racerId"], row["score"], row["lastSecond"]) for row in board] == [("racer-1", 0, None)]


def test_join_errors(api, race):
    rid = race["raceId"]
    assert api("join_race", {"raceId": rid, "racerId": "ghost"}, claims=ADMIN)[0] == 404
    assert api("join_race", {"raceId": "01JD5Z6Q8X000000000000000Z"}, claims=ADMIN)[0] == 404
    assert api("join_race", {"raceId": "not-a-race"}, claims=ADMIN)[0] == 404
    assert api("join_race", {"raceId": rid, "racerId": "racer-1"}, claims=racer_claims("racer-2"))[0] == 403


def test_join_a_finished_race_is_409(api, race):
    from alleycat.storage import races
    rid = race["raceId"]
    assert races.finish(races.get(rid, consistent=True))  # the race and its gate copies, as a finish writes them
    assert api("join_race", {"raceId": rid, "racerId": "racer-1"}, claims=racer_claims("racer-1"))[0] == 409


def test_a_join_that_meets_the_finish_is_409(api, race):
    # Given a join that read the race open, and a finish that lands before its write
    from alleycat.storage import racers as stored_racers
    from alleycat.storage import races
    rid = race["raceId"]
    gate, racer = races.gate_and_racer(rid, "racer-1")
    assert gate is not None and racer is not None and gate.status == "open"
    assert races.finish(races.get(rid, consistent=True))
    # Then its transaction is refused on the race's gate copy: no entry is written
    with pytest.raises(Exception, match="finished"):
        races.join(gate, racer)
    assert stored_racers.get_entry(rid, "racer-1", consistent=True) is None


def test_race_leaderboard_lists_every_joined_racer(api, race, server):
    rid = race["raceId"]
    for n in range(1, 8):
        api("put_racer", {"racerId": f"r{n}"}, body={"name": f"R{n}"}, claims=ADMIN)
        api("join_race", {"raceId": rid, "racerId": f"r{n}"}, claims=ADMIN)
    process(server.read())  # the stream puts the batch's joins on the board
    status, body = api("get_race_leaderboard", {"raceId": rid}, query={"limit": "1000"})
    assert status == 200 and body["status"] == "open" and body["classId"] == "hill-climb"
    assert sorted(i["racerId"] for i in body["items"]) == [f"r{n}" for n in range(1, 8)]
    assert [i["rank"] for i in body["items"]] == list(range(1, 8))
    assert all(i["score"] == 0 and i["lastSecond"] is None for i in body["items"])
    assert len(api("get_race_leaderboard", {"raceId": rid}, query={"limit": "3"})[1]["items"]) == 3
    assert api("get_race_leaderboard", {"raceId": rid}, query={"limit": "1001"})[0] == 400


def test_results_are_newest_first_and_page_with_tokens(api, race):
    rids = [race["raceId"]] + [api("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN)[1]["raceId"]
                               for _ in range(4)]
    for rid in rids:
        api("join_race", {"raceId": rid, "racerId": "racer-1"}, claims=ADMIN)
    seen, token = [], None
    while True:
        query = {"limit": "2", **({"nextToken": token} if token else {})}
        status, body = api("get_racer_results", {"racerId": "racer-1"}, query=query)
        assert status == 200 and body["name"] == "Racer One" and len(body["items"]) <= 2
        seen += [i["raceId"] for i in body["items"]]
        token = body["nextToken"]
        if not token:
            break
    assert seen == sorted(rids, reverse=True)
    assert all(i["rank"] is None and i["status"] == "open" for i in body["items"])


def test_unknown_racer_results_is_404_and_foreign_token_is_400(api, race):
    assert api("get_racer_results", {"racerId": "ghost"}, query={})[0] == 404
    api("join_race", {"raceId": race["raceId"], "racerId": "racer-1"}, claims=ADMIN)
    api("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN)
    token = api("get_class_races", query={"limit": "1"})[1]["nextToken"]
    assert token
    status, body = api("get_racer_results", {"racerId": "racer-1"}, query={"nextToken": token})
    assert status == 400 and "nextToken" in body["message"]


def test_class_races_newest_first_with_name_on_every_page(api, race):
    rids = [race["raceId"]] + [api("create_race", body={"startsAt": "2026-11-22T11:00:00Z"}, claims=ADMIN)[1]["raceId"]
                               for _ in range(2)]
    first = api("get_class_races", query={"limit": "2"})[1]
    second = api("get_class_races", query={"limit": "2", "nextToken": first["nextToken"]})[1]
    assert first["name"] == second["name"] == "Hill climb"
    assert [r["raceId"] for r in first["items"] + second["items"]] == sorted(rids, reverse=True)
    assert second["nextToken"] is None
    assert api("get_class_races", {"classId": "nope"}, query={})[0] == 404


def test_class_leaderboard_of_a_new_class_is_empty_and_unknown_is_404(api, race):
    assert api("get_class_leaderboard", query={})[1] == {"classId": "hill-climb", "name": "Hill climb", "metric": "output",
                                                         "items": []}
    assert api("get_class_leaderboard", {"classId": "nope"}, query={})[0] == 404


def test_history_of_a_joined_race_and_of_a_race_not_joined(api, race):
    rid = race["raceId"]
    assert api("get_racer_history", {"racerId": "racer-1"}, query={"raceId": rid})[0] == 404
    api("join_race", {"raceId": rid, "racerId": "racer-1"}, claims=ADMIN)
    status, body = api("get_racer_history", {"racerId": "racer-1"}, query={"raceId": rid})
    assert status == 200 and body["races"] == [{"raceId": rid, "classId": "hill-climb", "samples": []}]


@pytest.mark.parametrize("function, params, query", [
    ("get_racer_results", {"racerId": "racer-1"}, {}),
    ("get_racer_history", {"racerId": "racer-1"}, {}),
    ("get_class_races", {}, {}),
    ("get_class_leaderboard", {}, {}),
    ("get_race", None, None),
    ("get_race_leaderboard", None, {}),
    ("get_race_leaderboard", None, {"equipment": "real"}),
    ("get_reviews", {}, {"state": "pending"}),
    ("get_reviews", {}, {"state": "cleared"}),
])
def test_every_read_route_makes_one_dynamodb_request(api, race, request_counter, function, params, query):
    params = params if params is not None else {"raceId": race["raceId"]}
    api("join_race", {"raceId": race["raceId"], "racerId": "racer-1"}, claims=ADMIN)
    request_counter.clear()
    status, _ = api(function, params, query=query) if query is not None else api(function, params)
    assert status == 200
    assert request_counter == ["Query"]


def test_odd_but_valid_numbers_are_normalised(api, race, server):
    # Given numbers JSON allows but DynamoDB or the keys would trip on
    status, created = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 300.0},
                          claims=ADMIN)
    assert status == 201 and created["durationSeconds"] == 300
    assert api("get_race", {"raceId": created["raceId"]})[1]["durationSeconds"] == 300
    api("join_race", {"raceId": created["raceId"], "racerId": "racer-1"}, claims=ADMIN)
    samples = [{"racerId": "racer-1", "second": 1.0, "cadence": 1e-200, "resistance": 12.345678, "heartRate": 1.4449e2},
               {"racerId": "racer-1", "second": 2, "cadence": 0, "resistance": 0, "heartRate": None}]
    status, body = api("post_telemetry", {"raceId": created["raceId"]}, body={"samples": samples}, claims=ADMIN)
    assert (status, body["accepted"]) == (200, 2)
    server.read()  # the history writer's window passed
    history = api("get_racer_history", {"racerId": "racer-1"}, query={"raceId": created["raceId"]})[1]
    # (0 + 35) * (12.3457 + 65) / 100; 144.49 bpm in whole bpm; (0 + 35) * (0 + 65) / 100, a null heart rate is none
    assert history["races"][0]["samples"] == [[1, 0, 12.3457, 27.071, 144, None], [2, 0, 0, 22.75, None, None]]


@pytest.mark.parametrize("raw", ['{"name": NaN}', '{"name": Infinity}', "[" * 100_000 + "]" * 100_000])
def test_json_that_is_not_json_is_400(api, raw):
    assert api("put_racer", body=raw, claims=racer_claims("racer-1"))[0] == 400


@pytest.mark.parametrize("limit", ["²", "1e3", "-1", "99999999999"])
def test_odd_limits_are_400(api, race, limit):
    assert api("get_class_races", query={"limit": limit})[0] == 400


def test_deeply_nested_token_is_400(api, race):
    import base64
    token = base64.urlsafe_b64encode(b"[" * 100_000 + b"]" * 100_000).decode()
    assert api("get_class_races", query={"nextToken": token})[0] == 400


def test_history_token_of_another_race_is_400(api, race):
    import base64
    import json as json_
    other = json_.dumps({"q": f"history:racer-1:{race['raceId']}",
                         "k": {"PK": "RACER#racer-1", "SK": "HIST#01JD5Z6Q8X000000000000000Z#racer-1#000"}})
    token = base64.urlsafe_b64encode(other.encode()).decode()
    query = {"raceId": race["raceId"], "nextToken": token}
    assert api("get_racer_history", {"racerId": "racer-1"}, query=query)[0] == 400
