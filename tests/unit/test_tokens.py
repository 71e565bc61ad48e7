import base64
import json

import pytest

from alleycat import settings
from alleycat.errors import BadRequest
from alleycat.storage import keys, tokens

RACE_KEY = {"PK": {"S": "RACER#bob"}, "SK": {"S": "RACE#01JD5Z6Q8X0000000000000000"}}


def decode(token, scope="results:bob"):
    start = tokens.decode(token, scope, {"PK": "RACER#bob"}, [keys.ENTRY])
    return start.key if start else None


def signed(body, scope="results:bob"):
    """A token with a valid MAC over any body: what a leaked key would allow, to test the checks behind it."""
    payload = tokens._b64(json.dumps(body).encode())
    return f"{payload}.{tokens._b64(tokens._mac(scope, payload))}"


def test_token_round_trips_to_the_start_key_and_what_it_carries():
    token = tokens.encode(RACE_KEY, "results:bob", {"name": "Bob"})
    start = tokens.decode(token, "results:bob", {"PK": "RACER#bob"}, [keys.ENTRY])
    assert (start.key, start.carry) == (RACE_KEY, {"name": "Bob"})


def test_no_last_key_means_no_token():
    assert tokens.encode(None, "x") is None


@pytest.mark.parametrize("forged", ["garbage", "", "!!!", "a.b.c", "é.é", base64.urlsafe_b64encode(b"[1,2]").decode(),
                                    "x" * 5000])
def test_forged_token_is_a_bad_request(forged):
    with pytest.raises(BadRequest):
        decode(forged)


def test_an_unsigned_token_with_a_key_in_the_same_scope_is_refused():
    raw = json.dumps({"q": "results:bob", "k": {"PK": "RACER#bob", "SK": "RACE#01JD5Z6Q8X0000000000000001"}})
    with pytest.raises(BadRequest):
        decode(base64.urlsafe_b64encode(raw.encode()).decode())


def test_a_token_whose_payload_was_altered_is_refused():
    payload, mac = tokens.encode(RACE_KEY, "results:bob").split(".")
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    body["k"]["SK"] = "RACE#01JD5Z6Q8X0000000000000001"
    with pytest.raises(BadRequest):
        decode(tokens._b64(json.dumps(body).encode()) + "." + mac)


def test_a_token_signed_with_another_key_is_refused(monkeypatch):
    token = tokens.encode(RACE_KEY, "results:bob")
    monkeypatch.setenv(settings.PAGE_TOKEN_KEY, "another key")
    settings.reset()
    with pytest.raises(BadRequest):
        decode(token)


def test_token_of_another_query_is_refused():
    token = tokens.encode(RACE_KEY, "results:alice")
    with pytest.raises(BadRequest):
        decode(token)


@pytest.mark.parametrize("body", [
    {"k": {"PK": "RACER#alice", "SK": "RACE#01JD5Z6Q8X0000000000000000"}},   # outside the partition
    {"k": {"PK": "RACER#bob", "SK": "BEST#hill"}},                            # another entity's key
    {"k": {"PK": "RACER#bob", "SK": "RACE#01JD5Z6Q8X0000000000000000", "x": "y"}},  # an extra key
    {"k": {"PK": "RACER#bob", "SK": "RACE#" + "A" * 1100}},                  # over DynamoDB's 1,024 bytes
    {"k": {"PK": "RACER#bob", "SK": "RACE#\ud800"}},                         # a lone surrogate
    {"k": {"PK": "RACER#bob", "SK": "RACE#01JD5Z6Q8X0000000000000000"}, "x": 1},  # an extra field
])
def test_a_signed_token_must_still_hold_a_key_dynamodb_takes_in_the_partition(body):
    with pytest.raises(BadRequest):
        decode(signed(body))
