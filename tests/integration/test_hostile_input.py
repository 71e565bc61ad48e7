"""Hostile input found by fuzzing `make local`: each is a 4xx a person understands, never a 5xx."""

import base64
import json

import pytest

from alleycat.edge import routes

from .conftest import ADMIN, racer_claims

RACE_ID = "01JD5Z6Q8X000000000000000Z"


def old_style_token(scope, key):
    """A page token as a client could fabricate one: base64 JSON of a scope and a start key."""
    return base64.urlsafe_b64encode(json.dumps({"q": scope, "k": key}).encode()).decode().rstrip("=")


FORGED = {
    "a fabricated sort key": lambda pk, sk: {"PK": pk, "SK": sk},
    "an extra key attribute": lambda pk, sk: {"PK": pk, "SK": sk, "GSI": "x"},
    "a sort key over 1,024 bytes": lambda pk, sk: {"PK": pk, "SK": sk + "9" * 1100},
}
ROUTES = {
    "get_racer_results": ({"racerId": "racer-1"}, {}, "results:racer-1", "RACER#racer-1", f"RACE#{RACE_ID}"),
    "get_racer_history": ({"racerId": "racer-1"}, {}, "history:racer-1:", "RACER#racer-1",
                          f"HIST#{RACE_ID}#racer-1#001"),
    "get_class_races": ({}, {}, "races:hill-climb", f"RACE#{RACE_ID}", "CLASS#hill-climb"),
}


@pytest.mark.parametrize("forgery", FORGED)
@pytest.mark.parametrize("function", ROUTES)
def test_a_forged_page_token_is_400(api, race, function, forgery):
    params, query, scope, pk, sk = ROUTES[function]
    token = old_style_token(scope, FORGED[forgery](pk, sk))
    status, body = api(function, params, query={**query, "nextToken": token})
    assert status == 400 and "nextToken" in body["message"]


def test_a_page_token_holding_a_lone_surrogate_is_400(api, race):
    token = old_style_token("results:racer-1", {"PK": "RACER#racer-1", "SK": "RACE#\ud800"})
    assert api("get_racer_results", {"racerId": "racer-1"}, query={"nextToken": token})[0] == 400


@pytest.mark.parametrize("function, params, body", [
    ("put_racer", {"racerId": "racer-1"}, {"name": "\ud800"}),
    ("put_racer", {"racerId": "racer-1"}, {"name": "Amy \udfff"}),
    ("put_class", {}, {"name": "Hill", "description": "up \ud83d"}),
    ("put_class", {}, {"name": "Hill", "\ud800": "x"}),
    ("create_race", {}, {"startsAt": "2026-11-22T10:00:00\ud800Z"}),
])
def test_text_with_a_lone_surrogate_is_400(api, race, function, params, body):
    status, answer = api(function, params, body=body, claims=ADMIN)
    assert status == 400 and "Unicode" in answer["message"]


def test_a_real_astral_character_is_fine(api):
    status, body = api("put_racer", {"racerId": "racer-1"}, body={"name": "Amy 🚴"}, claims=racer_claims("racer-1"))
    assert (status, body["name"]) == (200, "Amy 🚴")


@pytest.mark.parametrize("starts_at", ["2026-11-22T10:00:00\u0000Z", "2026-11-22T10:00:00Z\u0000", "\u00002026-11-22T10:00:00Z",
                                       "2026-11-22 10:00:00Z", "2026-11-22T10Z", "２０２６-11-22T10:00:00Z",
                                       "2026-11-22T10:00:00.1234567Z", "2026-11-22T10:00:00z"])
def test_starts_at_must_be_exactly_an_iso_utc_time(api, race, starts_at):
    status, body = api("create_race", body={"startsAt": starts_at}, claims=ADMIN)
    assert status == 400 and "startsAt" in body["message"]


@pytest.mark.parametrize("starts_at", ["2026-11-22T10:00:00.250Z", "2026-11-22T10:00Z"])
def test_starts_at_without_seconds_or_with_fractions_is_accepted_and_normalised(api, race, starts_at):
    status, body = api("create_race", body={"startsAt": starts_at}, claims=ADMIN)
    assert (status, body["startsAt"]) == (201, "2026-11-22T10:00:00Z")


@pytest.mark.parametrize("starts_at", ["0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1-01-01T00:00:00Z",
                                       "-001-01-01T00:00:00Z", "10000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
                                       "9999-12-31T23:59:59.999999Z", "1970-01-01T00:00:00Z", "2026-11-22T24:00:00Z",
                                       "2026-11-22T10:00:60Z", "2000-01-01T00:00:00Z"])
def test_a_start_no_race_can_have_is_400_and_stores_nothing(api, race, starts_at):
    status, body = api("create_race", body={"startsAt": starts_at}, claims=ADMIN, headers={"Idempotency-Key": "odd"})
    assert status == 400 and "startsAt" in body["message"], body
    # the key made nothing: a good body with it makes its race
    status, made = api("create_race", body={"startsAt": "2026-11-22T11:00:00Z"}, claims=ADMIN,
                       headers={"Idempotency-Key": "odd"})
    assert (status, made["startsAt"]) == (201, "2026-11-22T11:00:00Z")
    assert len(api("get_class_races", query={"limit": "100"})[1]["items"]) == 2


def test_a_reused_idempotency_key_with_a_bad_body_is_400_and_with_another_body_422(api, race):
    key = {"Idempotency-Key": "again"}
    first = api("create_race", body={"startsAt": "2026-11-22T11:00:00Z"}, claims=ADMIN, headers=key)[1]
    assert api("create_race", body={"startsAt": "9999-12-31T23:59:59Z"}, claims=ADMIN, headers=key)[0] == 400
    assert api("create_race", body={"startsAt": "2026-11-22T11:00:00Z", "durationSeconds": 60}, claims=ADMIN,
               headers=key)[0] == 422
    assert api("create_race", body={"startsAt": "2026-11-22T11:00:00Z"}, claims=ADMIN, headers=key) == (201, first)


def test_history_of_a_racer_that_does_not_exist_is_404(api, race):
    status, body = api("get_racer_history", {"racerId": "nobody"}, query={})
    assert status == 404 and "nobody" in body["message"]
    # while a racer who exists but never raced has an empty history
    assert api("get_racer_history", {"racerId": "racer-1"}, query={}) == \
        (200, {"racerId": "racer-1", "races": [], "nextToken": None})


def test_every_results_page_carries_the_racers_name(api, race):
    # Given a racer in 4 races, read 2 a page
    rids = [race["raceId"]] + [api("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN)[1]["raceId"]
                               for _ in range(3)]
    for rid in rids:
        api("join_race", {"raceId": rid, "racerId": "racer-1"}, claims=ADMIN)
    pages, token = [], None
    while True:
        status, body = api("get_racer_results", {"racerId": "racer-1"},
                           query={"limit": "2", **({"nextToken": token} if token else {})})
        assert status == 200
        pages.append((len(body["items"]), body["name"]))
        token = body["nextToken"]
        if not token:
            break
    # Then each page names the racer, and the second, full, page is the last (no empty third page)
    assert pages == [(2, "Racer One"), (2, "Racer One")]


# Each write route with a body, and the body it takes in its sample (the deep value goes beside it, then in place of it).
WRITES = {route.function: route for route in routes.ROUTES if route.request is not None}


def nested(depth: int, shape: str) -> str:
    """JSON text of arrays (or objects) ``depth`` levels deep."""
    return "[" * depth + "]" * depth if shape == "array" else '{"a":' * (depth - 1) + "{}" + "}" * (depth - 1)


def deepest_under_the_limit(prefix: str, shape: str) -> int:
    per_level = len(nested(2, shape)) - len(nested(1, shape))
    return (256 * 1024 - len(prefix) - 2) // per_level


@pytest.mark.parametrize("shape", ["array", "object"])
@pytest.mark.parametrize("where", ["beside", "instead"])
@pytest.mark.parametrize("function", WRITES)
def test_a_body_nested_at_any_depth_under_the_size_limit_is_400(api, race, function, where, shape):
    # Given a body the route takes, with a value nested deeper than any body of the contract
    route = WRITES[function]
    params, body = {"raceId": race["raceId"]} if "raceId" in route.parameters else {}, route.sample.body
    if {"raceId", "racerId"} <= set(route.parameters):  # a route about a racer in a race: racer-1 joined
        assert api("join_race", params, claims=ADMIN)[0] == 200
    field = "extra" if where == "beside" else next(iter(body))
    prefix = json.dumps({name: value for name, value in body.items() if name != field})[:-1]
    prefix = (prefix + ", " if prefix != "{" else prefix) + json.dumps(field) + ": "
    limit = deepest_under_the_limit(prefix, shape)
    for depth in (33, 100, 500, 1_000, 5_000, 20_000, limit):
        text = prefix + nested(depth, shape) + "}"
        assert len(text.encode()) <= 256 * 1024
        # When it is sent / Then it is a 400 that says why, at every depth up to the body limit
        status, answer = api(function, params, body=text, claims=ADMIN)
        assert (status, answer["message"]) == (400, "invalid body: the body nests arrays or objects more than "
                                                     "32 levels deep"), (depth, status, answer)
    # while the same body nested as deep as allowed is judged by its fields alone
    status, answer = api(function, params, body=prefix + nested(31, shape) + "}", claims=ADMIN)
    assert status == (400 if where == "instead" else route.status), answer


@pytest.mark.parametrize("groups", [["racers,admin"], ["[admin]"], ["x admin"], ["Admin"], ["admin2", "racers"]])
def test_a_group_named_like_admin_is_not_admin(api, groups):
    # Issue 51: tokens with these groups acted as admin. Claims as the HTTP API's JWT authorizer passes a
    # token's list (local.auth.authorizer_claims, as API Gateway: "[a b]"), and as a list (REST API's authorizer)
    from local.auth import authorizer_claims

    for claims in (authorizer_claims({"sub": "eve", "cognito:groups": groups}), {"sub": "eve", "cognito:groups": groups}):
        if claims["cognito:groups"] == "[x admin]":
            continue  # no token holds a group with a space: Cognito and the local token route refuse the name
        status, body = api("put_class", {"classId": "x"}, body={"name": "X"}, claims=claims)
        assert (status, body.get("message")) == (403, "only an admin may do this"), claims
    # admin exactly, among other groups, is
    assert api("put_class", {"classId": "x"}, body={"name": "X"},
               claims=authorizer_claims({"sub": "ops", "cognito:groups": [*groups, "admin"]}))[0] == 200
