import base64
import json

import pytest

from alleycat import keys, tokens
from alleycat.errors import BadRequest

RACE_KEY = {"PK": {"S": "RACER#bob"}, "SK": {"S": "RACE#01JD5Z6Q8X0000000000000000"}}


def decode(token, scope="results:bob"):
    return tokens.decode(token, scope, {"PK": "RACER#bob"}, [keys.ENTRY])


def test_token_round_trips_to_the_start_key():
    assert decode(tokens.encode(RACE_KEY, "results:bob")) == RACE_KEY


def test_no_last_key_means_no_token():
    assert tokens.encode(None, "x") is None


@pytest.mark.parametrize("forged", ["garbage", "", "!!!", base64.urlsafe_b64encode(b"[1,2]").decode()])
def test_forged_token_is_a_bad_request(forged):
    with pytest.raises(BadRequest):
        decode(forged)


def test_token_of_another_query_is_refused():
    token = tokens.encode(RACE_KEY, "results:alice")
    with pytest.raises(BadRequest):
        decode(token)


def test_token_pointing_outside_the_partition_is_refused():
    raw = json.dumps({"q": "results:bob", "k": {"PK": "RACER#alice", "SK": "RACE#01JD5Z6Q8X0000000000000000"}})
    with pytest.raises(BadRequest):
        decode(base64.urlsafe_b64encode(raw.encode()).decode())


def test_token_with_a_key_of_the_wrong_entity_is_refused():
    raw = json.dumps({"q": "results:bob", "k": {"PK": "RACER#bob", "SK": "BEST#hill"}})
    with pytest.raises(BadRequest):
        decode(base64.urlsafe_b64encode(raw.encode()).decode())
