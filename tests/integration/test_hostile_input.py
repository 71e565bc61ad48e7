"""Hostile input found by fuzzing `make local`: each is a 4xx a person understands, never a 5xx."""

import base64
import json

import pytest

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
