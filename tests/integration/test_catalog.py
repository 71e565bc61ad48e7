"""GET /classes and GET /races?state=: the catalog lists, each page one Query, kept by the writes
that create and finish and by the stream."""

import pytest

from alleycat.storage import catalog, dynamo, races

from .conftest import ADMIN, process

START = "2026-11-22T10:00:00Z"
BEFORE, DURING, AFTER = "2026-11-22T09:59:59Z", "2026-11-22T10:00:00Z", "2026-11-22T10:10:00Z"


def listed(api, state, at, **query):
    status, body = api("get_races", query={"state": state, **query}, at=at)
    assert status == 200, body
    return body


def race_ids(body):
    return [item["raceId"] for item in body["items"]]


def new_race(api, starts_at=START, duration=300, class_id="hill-climb"):
    status, body = api("create_race", {"classId": class_id}, body={"startsAt": starts_at, "durationSeconds": duration},
                       claims=ADMIN)
    assert status == 201, body
    return body["raceId"]


@pytest.fixture
def classes(api):
    for class_id, name in (("sprint", "Sprint"), ("hill-climb", "Hill climb"), ("endurance", "Endurance")):
        assert api("put_class", {"classId": class_id}, body={"name": name}, claims=ADMIN)[0] == 200
    return api


def test_classes_are_listed_by_id_and_paged(classes):
    api = classes
    status, first = api("get_classes", query={"limit": "2"})
    assert status == 200
    assert [c["classId"] for c in first["items"]] == ["endurance", "hill-climb"]
    assert first["items"][1] == {"classId": "hill-climb", "name": "Hill climb", "description": "", "metric": "output"}
    status, second = api("get_classes", query={"limit": "2", "nextToken": first["nextToken"]})
    assert [c["classId"] for c in second["items"]] == ["sprint"] and second["nextToken"] is None
    # A class renamed is listed with its new name at once (its card is written with it)
    api("put_class", {"classId": "sprint"}, body={"name": "Sprint finish", "description": "Short"}, claims=ADMIN)
    assert api("get_classes", query={})[1]["items"][-1] == {"classId": "sprint", "name": "Sprint finish",
                                                             "description": "Short", "metric": "output"}


def test_a_race_is_upcoming_then_live_with_no_write_then_finished(classes, server):
    api = classes
    race_id = new_race(api)
    server.read()
    assert race_ids(listed(api, "upcoming", BEFORE)) == [race_id]
    assert race_ids(listed(api, "live", BEFORE)) == []
    # When its start passes (no write in between)
    assert race_ids(listed(api, "upcoming", DURING)) == []
    live = listed(api, "live", DURING)
    assert live["state"] == "live" and live["items"] == [{
        "raceId": race_id, "classId": "hill-climb", "className": "Hill climb", "startsAt": START,
        "durationSeconds": 300, "status": "open", "racerCount": 0}]
    # When it is finished
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    assert race_ids(listed(api, "live", AFTER)) == []
    assert [(i["raceId"], i["status"]) for i in listed(api, "finished", AFTER)["items"]] == [(race_id, "finished")]


def test_orders_follow_the_contract(classes):
    api = classes
    early, late = new_race(api, "2026-11-22T10:00:00Z"), new_race(api, "2026-11-22T11:00:00Z", class_id="sprint")
    later = new_race(api, "2026-11-22T12:00:00Z", class_id="endurance")
    # upcoming: soonest first; live: most recently started first
    assert race_ids(listed(api, "upcoming", "2026-11-22T09:00:00Z")) == [early, late, later]
    assert race_ids(listed(api, "live", "2026-11-22T13:00:00Z")) == [later, late, early]
    assert [i["className"] for i in listed(api, "live", "2026-11-22T13:00:00Z")["items"]] == [
        "Endurance", "Sprint", "Hill climb"]
    for race_id in (early, later):
        api("finish_race", {"raceId": race_id}, claims=ADMIN)
    assert race_ids(listed(api, "finished", "2026-11-22T13:00:00Z")) == [later, early]
    assert race_ids(listed(api, "live", "2026-11-22T13:00:00Z")) == [late]


def test_pages_keep_the_first_pages_time(classes):
    # Given three upcoming races, read two at a time
    api = classes
    ids = [new_race(api, f"2026-11-22T1{n}:00:00Z") for n in range(3)]
    first = listed(api, "upcoming", "2026-11-22T09:00:00Z", limit="2")
    assert race_ids(first) == ids[:2] and first["nextToken"]
    # When the next page is asked for after the first race went live
    second = listed(api, "upcoming", "2026-11-22T10:30:00Z", limit="2", nextToken=first["nextToken"])
    # Then the list goes on from where it was, as of page 1's time: nothing skipped or repeated
    assert race_ids(second) == ids[2:] and second["nextToken"] is None


def test_racer_count_and_class_name_reach_the_card_through_the_stream(classes, server):
    api = classes
    race_id = new_race(api)
    for racer_id in ("a", "b"):
        api("put_racer", {"racerId": racer_id}, body={"name": racer_id.upper()}, claims=ADMIN)
        api("join_race", {"raceId": race_id, "racerId": racer_id}, claims=ADMIN)
    api("put_class", {"classId": "hill-climb"}, body={"name": "Hill climb II"}, claims=ADMIN)
    records = server.read()
    assert process(records) == {"batchItemFailures": []}
    assert process(server.read()) == {"batchItemFailures": []}  # the class name, passed to the race, then its card
    card = listed(api, "upcoming", BEFORE)["items"][0]
    assert (card["racerCount"], card["className"]) == (2, "Hill climb II")
    # A redelivered old batch changes nothing: the card takes the race as it is now
    assert process(records) == {"batchItemFailures": []}
    card = listed(api, "upcoming", BEFORE)["items"][0]
    assert (card["racerCount"], card["className"]) == (2, "Hill climb II")


def test_a_join_racing_the_finish_still_counts_on_the_finished_card(classes, server):
    # Given a race read by the finish before a racer joined it
    api = classes
    race_id = new_race(api)
    stale = races.get(race_id, consistent=True)
    api("put_racer", {"racerId": "a"}, body={"name": "A"}, claims=ADMIN)
    api("join_race", {"raceId": race_id, "racerId": "a"}, claims=ADMIN)
    # When it is finished with what it read
    assert races.finish(stale)
    process(server.read())
    # Then the finished card has the count the race has
    assert listed(api, "finished", AFTER)["items"][0]["racerCount"] == 1


def test_a_race_without_a_card_gets_one_from_the_stream(classes, server, table):
    # Given a race whose card is missing (created before the catalog existed)
    api = classes
    race_id = new_race(api)
    race = races.get(race_id, consistent=True)
    table.delete_item(TableName="alleycat-test", Key={k: {"S": v} for k, v in
                                                      catalog.e.RaceCard.of(race).key.items()})
    server.read()
    api("put_racer", {"racerId": "a"}, body={"name": "A"}, claims=ADMIN)
    api("join_race", {"raceId": race_id, "racerId": "a"}, claims=ADMIN)
    process(server.read())  # the join counted on the race
    process(server.read())  # the race's new count on its card
    assert [(i["raceId"], i["racerCount"]) for i in listed(api, "upcoming", BEFORE)["items"]] == [(race_id, 1)]


@pytest.mark.parametrize("query, message", [
    ({}, "state is missing"),
    ({"state": "soon"}, "state may not be 'soon'"),
    ({"state": "LIVE"}, "state may not be 'LIVE'"),
    ({"state": "live", "limit": "0"}, "limit must be a whole number from 1 to 100"),
    ({"state": "live", "limit": "101"}, "limit must be a whole number from 1 to 100"),
    ({"state": "live", "limit": "ten"}, "limit must be a whole number from 1 to 100"),
    ({"state": "live", "nextToken": ""}, "nextToken must not be empty"),
    ({"state": "live", "nextToken": "forged.token"}, "nextToken is not valid"),
])
def test_bad_race_queries_are_400_with_a_message(api, query, message):
    status, body = api("get_races", query=query)
    assert status == 400 and message in body["message"]


@pytest.mark.parametrize("query", [{"limit": "0"}, {"limit": "101"}, {"nextToken": "x.y"}, {"nextToken": ""}])
def test_bad_class_queries_are_400(api, query):
    status, body = api("get_classes", query=query)
    assert status == 400 and body["message"]


def test_a_token_only_serves_the_list_it_came_from(classes):
    api = classes
    for n in range(3):
        new_race(api, f"2026-11-22T1{n}:00:00Z")
    upcoming = listed(api, "upcoming", "2026-11-22T09:00:00Z", limit="1")["nextToken"]
    live = listed(api, "live", "2026-11-22T13:00:00Z", limit="1")["nextToken"]
    classes_token = api("get_classes", query={"limit": "1"})[1]["nextToken"]
    assert upcoming and live and classes_token
    for state, token in (("live", upcoming), ("finished", live), ("upcoming", classes_token)):
        status, body = api("get_races", query={"state": state, "nextToken": token})
        assert status == 400 and "nextToken" in body["message"]
    assert api("get_classes", query={"nextToken": upcoming})[0] == 400
    assert api("get_class_races", query={"nextToken": live})[0] == 400


def test_each_list_page_is_one_query(classes, monkeypatch):
    api = classes
    for n in range(5):
        new_race(api, f"2026-11-22T1{n}:00:00Z")
    real = dynamo.client()
    calls = []
    original = real.query
    monkeypatch.setattr(real, "query", lambda **request: calls.append(request) or original(**request))
    body = listed(api, "upcoming", "2026-11-22T09:00:00Z", limit="2")
    listed(api, "upcoming", "2026-11-22T09:00:00Z", limit="2", nextToken=body["nextToken"])
    api("get_classes", query={"limit": "2"})
    # Then each page was one Query, reading one item past the page and none it throws away
    assert len(calls) == 3 and all("FilterExpression" not in c for c in calls)
    assert all(c["Limit"] == 3 for c in calls)

