"""Every answer's Cache-Control, route by route: what the edge may keep, and for how long."""

import pytest

from alleycat.edge.routes import ROUTES, SAMPLE_IDS
from local import handlers
from local.events import sample_event

from .conftest import ADMIN, racer_claims

WRITES = [route for route in ROUTES if route.method != "GET"]
WRITE_FUNCTIONS = [route.function for route in WRITES]


def cache_control(function, path_parameters=None, body=..., query=..., claims=...) -> tuple[int, str]:
    response = handlers.invoke(function, sample_event(function, path_parameters, body, query, claims))
    return response["statusCode"], response["headers"]["Cache-Control"]


def test_an_open_races_reads_are_kept_a_second(api, race):
    # Given an open race with a racer in it
    race_id = race["raceId"]
    api("join_race", {"raceId": race_id, "racerId": "racer-1"}, claims=racer_claims("racer-1"))
    # Then every public read about it answers with its promised Cache-Control
    assert cache_control("get_race", {"raceId": race_id}) == (200, "public, max-age=1")
    assert cache_control("get_race_leaderboard", {"raceId": race_id}) == (200, "public, max-age=1")
    assert cache_control("get_class_leaderboard") == (200, "public, max-age=1")
    assert cache_control("get_class_races") == (200, "public, max-age=5")
    assert cache_control("get_racer_results") == (200, "public, max-age=1")
    assert cache_control("get_racer_history", query={"raceId": race_id}) == (200, "public, max-age=1")


def test_a_finished_race_is_kept_a_day_and_its_board_a_minute(api, race):
    # Given a race that is finished
    race_id = race["raceId"]
    api("join_race", {"raceId": race_id, "racerId": "racer-1"}, claims=racer_claims("racer-1"))
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    # Then the race item can be kept a day, its leaderboard a minute (renames still reach it)
    assert cache_control("get_race", {"raceId": race_id}) == (200, "public, max-age=86400")
    assert cache_control("get_race_leaderboard", {"raceId": race_id}) == (200, "public, max-age=60")
    # and its replay, until the stream settles it, is a read's conflict: kept a second
    assert cache_control("get_race_replay", {"raceId": race_id}) == (409, "public, max-age=1")


def test_a_settled_races_replay_is_kept_a_minute(api, race, server):
    from .conftest import process

    # Given a finished race the stream has settled
    race_id = race["raceId"]
    api("join_race", {"raceId": race_id, "racerId": "racer-1"}, claims=racer_claims("racer-1"))
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    assert process(server.read()) == {"batchItemFailures": []}
    # Then its replay is kept a minute: its scores never change, a rename or a review decision shows within it
    assert cache_control("get_race_replay", {"raceId": race_id}) == (200, "public, max-age=60")


def test_every_write_answers_no_store(api, race):
    # Given each write route called successfully with an admin's token: its sample, in the table's order, on the race
    ids = {**SAMPLE_IDS, "raceId": race["raceId"]}
    for route in WRITES:
        # Then the edge and the browser never keep the answer
        status, control = cache_control(route.function, {name: ids[name] for name in route.parameters},
                                        route.sample.body, claims=ADMIN)
        assert (status, control) == (route.status, "no-store"), route.function


@pytest.mark.parametrize("function", WRITE_FUNCTIONS)
def test_a_write_refused_for_want_of_credentials_answers_no_store(table, function):
    # Given a write without an identity (the authorizer would have refused it first in AWS)
    status, control = cache_control(function, claims=None)
    # Then its refusal is not kept either
    assert (status, control) == (401, "no-store")


def test_a_reads_client_errors_are_kept_one_second(api, race):
    # Given a race id nobody created and a limit out of range
    status, control = cache_control("get_race", {"raceId": "01JD5Z6Q8X0000000000000009"})
    assert (status, control) == (404, "public, max-age=1")
    status, control = cache_control("get_race_leaderboard", {"raceId": race["raceId"]}, query={"limit": "0"})
    assert (status, control) == (400, "public, max-age=1")


def test_a_read_the_table_cannot_serve_now_is_not_kept(api, race, faults):
    # Given DynamoDB throttling every read of the race
    from .faults import throttled
    faults.fail("Query", throttled("Query"))
    # Then the 503 is never kept at the edge (a second later the table may serve it)
    status, control = cache_control("get_race", {"raceId": race["raceId"]})
    assert (status, control) == (503, "no-store")
