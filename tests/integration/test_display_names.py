"""PUT /racers/{racerId} and PUT /classes/{classId}: names shown on public boards are stored in one
spelling, and text that hides, reorders or blanks a board is a 400 that changes nothing."""

import pytest

from .conftest import ADMIN, racer_claims

REFUSED = ["   ", "\u200b\u200d", "\u3164", "Amy\x00", "Amy\x1b[31m", "Amy \u202eredaeL", "\u2066Amy\u2069"]


@pytest.mark.parametrize("name", REFUSED)
def test_a_racer_name_that_is_blank_controlling_or_invisible_is_400_and_changes_nothing(api, name):
    racer = racer_claims("racer-1")
    assert api("put_racer", {"racerId": "racer-1"}, body={"name": "Amy"}, claims=racer)[0] == 200
    status, body = api("put_racer", {"racerId": "racer-1"}, body={"name": name}, claims=racer)
    assert status == 400 and body["message"].startswith("name must")
    assert api("get_racer_results", {"racerId": "racer-1"})[1]["name"] == "Amy"


@pytest.mark.parametrize("name", REFUSED)
def test_a_class_name_that_is_blank_controlling_or_invisible_is_400(api, name):
    status, body = api("put_class", body={"name": name}, claims=ADMIN)
    assert status == 400 and body["message"].startswith("name must")
    assert api("get_classes")[1]["items"] == []


def test_a_name_is_stored_and_answered_normalised(api):
    status, body = api("put_racer", {"racerId": "racer-1"}, body={"name": "  Ame\u0301lie \n  Rider "},
                       claims=racer_claims("racer-1"))
    assert (status, body["name"]) == (200, "Am\u00e9lie Rider")
    assert api("get_racer_results", {"racerId": "racer-1"})[1]["name"] == "Am\u00e9lie Rider"
    status, body = api("put_class", body={"name": "\tHill  climb "}, claims=ADMIN)
    assert (status, body["name"]) == (200, "Hill climb")
