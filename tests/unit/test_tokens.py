import base64
import hashlib
import hmac
import json
import os

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
    return f"{payload}.{tokens._b64(tokens._mac(os.environ[settings.PAGE_TOKEN_KEY], scope, payload))}"


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


# --- what the token is, computed here without the module: base64url (no padding) JSON of the key,
# a dot, and the first 16 bytes of HMAC-SHA256 under PAGE_TOKEN_KEY of "<scope>\n<payload>" ---

def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def signed_here(payload: str, scope: str = "results:bob") -> str:
    secret = os.environ[settings.PAGE_TOKEN_KEY].encode()
    mac = hmac.new(secret, scope.encode("utf-8", "surrogatepass") + b"\n" + payload.encode(), hashlib.sha256).digest()[:16]
    return f"{payload}.{b64url(mac)}"


def test_a_token_is_its_key_in_base64url_json_and_an_hmac_of_the_scope_and_payload():
    token = tokens.encode(RACE_KEY, "results:bob")
    payload = token.split(".")[0]
    assert token == signed_here(payload)
    assert json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))) == \
        {"k": {"PK": "RACER#bob", "SK": "RACE#01JD5Z6Q8X0000000000000000"}}


def test_a_token_signed_here_is_taken():
    payload = b64url(json.dumps({"k": {"PK": "RACER#bob", "SK": "RACE#01JD5Z6Q8X0000000000000000"}}).encode())
    assert decode(signed_here(payload)) == RACE_KEY


def test_a_scope_holding_a_lone_surrogate_still_signs_and_checks():
    # A path parameter is any text the URL decodes to; a lone surrogate in it is still a 400 at worst, never a 500.
    token = tokens.encode(RACE_KEY, "results:\ud800")
    assert token == signed_here(token.split(".")[0], "results:\ud800")
    assert decode(token, "results:\ud800") == RACE_KEY


def test_every_token_round_trips_whatever_base64url_characters_it_holds():
    # 200 keys: their payloads and MACs hold '-' and '_', which base64url has for '+' and '/'.
    seen = set()
    for n in range(200):
        key = {"PK": {"S": "RACER#bob"}, "SK": {"S": f"RACE#01JD5Z6Q8X{n:016d}"}}
        token = tokens.encode(key, "results:bob", {"name": f"Bob {n}"})
        seen |= set(token)
        start = tokens.decode(token, "results:bob", {"PK": "RACER#bob"}, [keys.ENTRY])
        assert (start.key, start.carry) == (key, {"name": f"Bob {n}"})
    assert {"-", "_"} <= seen


def test_a_token_without_a_carry_carries_an_empty_mapping():
    start = tokens.decode(tokens.encode(RACE_KEY, "results:bob"), "results:bob", {"PK": "RACER#bob"}, [keys.ENTRY])
    assert start.carry == {}


def test_a_refused_token_is_a_400_whose_message_names_nexttoken():
    # api.md: a 400's message names the query parameter that is wrong.
    with pytest.raises(BadRequest) as refused:
        decode("garbage")
    assert refused.value.status == 400
    assert refused.value.message.startswith("nextToken ")


def body_of_chars(token_chars: int) -> str:
    """A signed-here payload whose token has exactly ``token_chars`` characters (a padded carry)."""
    for filler in range(4000):
        body = {"k": {"PK": "RACER#bob", "SK": "RACE#01JD5Z6Q8X0000000000000000"}, "c": {"name": "x" * filler}}
        token = signed_here(b64url(json.dumps(body).encode()))
        if len(token) == token_chars:
            return token
    raise AssertionError(f"no token of {token_chars} characters")


def test_a_token_over_4096_characters_is_refused_even_when_its_mac_is_right():
    # The cap a token is read up to: 4,096 characters. A MAC of 22 characters and a payload of a
    # whole number of base64url characters never make exactly 4,096; 4,095 is taken, 4,097 is not.
    assert decode(body_of_chars(4095)) == RACE_KEY
    with pytest.raises(BadRequest):
        decode(body_of_chars(4097))


@pytest.mark.parametrize("carry", [5, "Bob", ["Bob"], None])
def test_a_carry_that_is_not_a_mapping_is_refused(carry):
    with pytest.raises(BadRequest):
        decode(signed({"k": {"PK": "RACER#bob", "SK": "RACE#01JD5Z6Q8X0000000000000000"}, "c": carry}))


@pytest.mark.parametrize("part", [7, 7.5, None, True, ["RACE#01JD5Z6Q8X0000000000000000"], {"S": "x"}])
def test_a_key_part_that_is_not_text_is_a_400_not_a_500(part):
    # A numeric sort key in a signed body once reached str methods: the 400 must come first.
    for body in ({"k": {"PK": "RACER#bob", "SK": part}}, {"k": {"PK": part, "SK": "RACE#01JD5Z6Q8X0000000000000000"}}):
        with pytest.raises(BadRequest):
            decode(signed(body))


# DynamoDB's limits on a key attribute's value (Developer Guide, "Partition key" and "Sort key"
# under "Service, account, and table quotas"): 1 to 2,048 bytes for the partition key, 1 to 1,024
# for the sort key. Templates that take any text show that the size check is what refuses.
FREE = keys.EntityKeys("Free", keys.KeyTemplate("P#{a}"), keys.KeyTemplate("{b}"))
EMPTY_SORT = keys.EntityKeys("EmptySort", keys.KeyTemplate("P#{a}"), keys.KeyTemplate(""))


def decode_free(key: dict, entity=FREE):
    return tokens.decode(signed({"k": key}, scope="free"), "free", {"PK": key["PK"]}, [entity]).key


@pytest.mark.parametrize("sk", ["s", "s" * 1024, "é" * 200])
def test_a_sort_key_of_1_to_1024_bytes_is_taken(sk):
    assert decode_free({"PK": "P#a", "SK": sk}) == {"PK": {"S": "P#a"}, "SK": {"S": sk}}


@pytest.mark.parametrize("sk", ["s" * 1025])
def test_a_sort_key_of_1025_bytes_is_refused(sk):
    assert len(sk.encode()) == 1025
    with pytest.raises(BadRequest):
        decode_free({"PK": "P#a", "SK": sk})


def test_a_partition_key_of_2048_bytes_is_taken_and_of_2049_refused():
    pk = "P#" + "a" * 2046
    assert decode_free({"PK": pk, "SK": "s"})["PK"] == {"S": pk}
    with pytest.raises(BadRequest):
        decode_free({"PK": pk + "a", "SK": "s"})


def test_an_empty_key_value_is_refused():
    # The template parses "" as its sort key: 0 bytes, below DynamoDB's 1, is what refuses it.
    assert EMPTY_SORT.parse({"PK": "P#a", "SK": ""}) == {"a": "a"}
    with pytest.raises(BadRequest):
        decode_free({"PK": "P#a", "SK": ""}, EMPTY_SORT)


# --- the query's prefix: the inverted index's partition is SK, its sort key PK ---

def test_a_token_of_the_inverted_index_is_checked_against_the_prefix_of_pk():
    race_key = {"PK": "RACE#01JD5Z6Q8X0000000000000000", "SK": "CLASS#hill"}
    token = signed({"k": race_key}, scope="races:hill")
    start = tokens.decode(token, "races:hill", {"SK": "CLASS#hill"}, [keys.RACE], sort_prefix="RACE#")
    assert start.key == {"PK": {"S": "RACE#01JD5Z6Q8X0000000000000000"}, "SK": {"S": "CLASS#hill"}}
    with pytest.raises(BadRequest):
        tokens.decode(token, "races:hill", {"SK": "CLASS#hill"}, [keys.RACE], sort_prefix="RACE#02")
    with pytest.raises(BadRequest):
        tokens.decode(token, "races:hill", {"SK": "CLASS#other"}, [keys.RACE], sort_prefix="RACE#")


def test_a_token_of_a_sort_key_prefix_query_is_refused_outside_the_prefix():
    chunk = {"PK": "RACER#bob", "SK": "HIST#R1#bob#007"}
    token = signed({"k": chunk}, scope="history:bob")
    start = tokens.decode(token, "history:bob", {"PK": "RACER#bob"}, [keys.CHUNK], sort_prefix="HIST#R1#")
    assert start.key == {"PK": {"S": "RACER#bob"}, "SK": {"S": "HIST#R1#bob#007"}}
    with pytest.raises(BadRequest):
        tokens.decode(token, "history:bob", {"PK": "RACER#bob"}, [keys.CHUNK], sort_prefix="HIST#R2#")
