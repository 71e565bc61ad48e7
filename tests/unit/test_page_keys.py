"""The page-token keys read from their secret: signed with the current key, accepted under the ring's three, read
once a process and again after REFRESH_SECONDS; tokens survive a rotation in processes on either side of it."""

import pytest

from alleycat import settings
from alleycat.aws import clients, page_keys
from alleycat.aws.page_keys import KeyRing
from alleycat.errors import BadRequest
from alleycat.storage import keys, tokens

SECRET = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:PageTokenKey-AbCdEf"
START = {"PK": {"S": "RACER#bob"}, "SK": {"S": "RACE#01JD5Z6Q8X0000000000000000"}}


class Secret:
    """Secrets Manager's GetSecretValue of one secret, counted."""

    def __init__(self, ring: KeyRing):
        self.ring, self.reads, self.down = ring, 0, False

    def get_secret_value(self, SecretId):
        assert SecretId == SECRET
        if self.down:
            raise ConnectionError("Secrets Manager did not answer")
        self.reads += 1
        return {"SecretString": self.ring.to_json()}


@pytest.fixture
def secret(monkeypatch):
    stored = Secret(KeyRing("k1").rotated("k2"))  # as the first rotation leaves it: k1 signs, k2 next
    monkeypatch.setattr(clients, "client", lambda service: stored if service == "secretsmanager" else None)
    monkeypatch.setenv(settings.PAGE_TOKEN_SECRET, SECRET)
    monkeypatch.delenv(settings.PAGE_TOKEN_KEY)
    settings.reset()
    page_keys.forget()
    yield stored
    page_keys.forget()
    monkeypatch.undo()
    settings.reset()


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(page_keys.time, "monotonic", lambda: now[0])
    return now


def decode(token):
    return tokens.decode(token, "results:bob", {"PK": "RACER#bob"}, [keys.ENTRY])


def test_the_secret_is_read_at_the_first_token_once_and_again_after_an_hour(secret, clock):
    assert secret.reads == 0
    token = tokens.encode(START, "results:bob")
    assert decode(token).key == START and secret.reads == 1
    clock[0] += page_keys.REFRESH_SECONDS - 1
    tokens.encode(START, "results:bob")
    assert secret.reads == 1
    clock[0] += 1
    tokens.encode(START, "results:bob")
    assert secret.reads == 2


def test_a_refresh_that_fails_keeps_the_keys_read_and_a_first_read_that_fails_raises(secret, clock):
    token = tokens.encode(START, "results:bob")
    secret.down = True
    clock[0] += page_keys.REFRESH_SECONDS
    assert decode(token).key == START
    page_keys.forget()
    with pytest.raises(ConnectionError):
        decode(token)


def test_tokens_signed_on_either_side_of_a_rotation_are_taken_on_the_other_for_a_rotation_period(secret, clock):
    before = tokens.encode(START, "results:bob")  # this process read the ring before the rotation
    secret.ring = secret.ring.rotated("k3")  # k2 signs now
    page_keys.forget()  # a process started after it
    after = tokens.encode(START, "results:bob")
    assert after != before
    assert decode(before).key == START
    page_keys._read = (SECRET, KeyRing("k1").rotated("k2"), clock[0])  # back in the process that read it before
    assert decode(after).key == START
    secret.ring = secret.ring.rotated("k4")  # a second rotation: k1 is out of the ring
    page_keys.forget()
    assert decode(after).key == START
    with pytest.raises(BadRequest):
        decode(before)


def test_a_ring_rotates_by_one_key_and_the_first_rotation_of_a_lone_key_keeps_it_signing():
    assert KeyRing("a").rotated("b") == KeyRing(current="a", previous="a", next="b")
    assert KeyRing("b", "a", "c").rotated("d") == KeyRing(current="c", previous="b", next="d")
    assert KeyRing("b", "a", "c").accepted == ("b", "c", "a")
    assert KeyRing.from_json(KeyRing("b", "a", "c").to_json()) == KeyRing("b", "a", "c")
    assert KeyRing.from_json('{"current": "generated"}') == KeyRing("generated")
    for stored in ('"a key"', '{"current": ""}', '{"previous": "a"}'):
        with pytest.raises(ValueError):
            KeyRing.from_json(stored)
