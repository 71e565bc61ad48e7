"""IoT Core's custom authorizer for bikes (alleycat.edge.ingest_auth): the access token checked as the API's
JWT authorizer checks it, RS256 in pure Python against the local user pool's signing keys, and a policy that
lets a racer connect and publish to their own telemetry topics only."""

import base64
import json

import pytest

from alleycat.edge import ingest_auth
from alleycat.edge.ingest_auth import Config, IngestAuthorizer, rs256_valid
from local.auth import SigningKey, b64url, unb64url

ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_pool"
CLIENT = "app-client"
PREFIX = "arn:aws:iot:eu-west-1:123456789012:"
TOPIC = "$aws/rules/alleycat_ingest/races/{raceId}/racers/{racerId}/telemetry"  # the telemetry rule's Basic Ingest
CONFIG = Config(ISSUER, CLIENT, ("aws.cognito.signin.user.admin",), "alleycat",
                ingest_auth.topic_arn(PREFIX, TOPIC), ingest_auth.client_arn(PREFIX))
NOW = 1_000_000
SUB = "5b1c2d3e-0000-4000-8000-00000000abcd"


@pytest.fixture(scope="module")
def keys():
    return {"access": SigningKey(), "id": SigningKey()}  # the pool's two keys, as local.userpool has them


class Pool:
    """The user pool's JWKS at <issuer>/.well-known/jwks.json, counting the authorizer's fetches."""

    def __init__(self, keys):
        self.keys, self.fetched = keys, []

    def __call__(self, url):
        self.fetched.append(url)
        assert url == f"{ISSUER}/.well-known/jwks.json"
        return {"keys": [key.jwk for key in self.keys.values()]}


@pytest.fixture
def pool(keys):
    return Pool(keys)


@pytest.fixture
def authorizer(pool):
    clock = [NOW]
    authorizer = IngestAuthorizer(CONFIG, now=lambda: clock[0], fetch=pool)
    authorizer.clock = clock
    return authorizer


def access(**changes):
    claims = {"sub": SUB, "iss": ISSUER, "client_id": CLIENT, "token_use": "access", "username": SUB,
              "scope": "openid aws.cognito.signin.user.admin", "iat": NOW - 10, "auth_time": NOW - 10, "exp": NOW + 3600}
    return {name: value for name, value in {**claims, **changes}.items() if value is not None}


def event(token, username="alleycat?x-amz-customauthorizer-name=AlleycatIngest", client="mqttjs_1f2e3d4c"):
    mqtt = {"username": username, "password": base64.b64encode(token.encode()).decode()}
    return {"token": "", "signatureVerified": False, "protocols": ["tls", "mqtt"],
            "protocolData": {"mqtt": {**mqtt, **({"clientId": client} if client is not None else {})}},
            "connectionMetadata": {"id": "6f6b2a3c-1d1e-4c47-9e1f-0a1b2c3d4e5f"}}


def test_a_racers_access_token_may_connect_and_publish_to_their_own_telemetry_only(authorizer, keys):
    answer = authorizer.authorize(event(keys["access"].sign(access()))).response()
    assert answer["isAuthenticated"] is True
    assert answer["principalId"] == SUB.encode().hex() and answer["principalId"].isalnum()
    assert answer["disconnectAfterInSeconds"] == answer["refreshAfterInSeconds"] == 3600
    [document] = [json.loads(text) for text in answer["policyDocuments"]]
    assert document == {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "iot:Connect", "Resource": f"{PREFIX}client/mqttjs_1f2e3d4c"},
        {"Effect": "Allow", "Action": "iot:Publish",
         "Resource": f"{PREFIX}topic/$aws/rules/alleycat_ingest/races/*/racers/{SUB}/telemetry"}]}


def test_the_connection_ends_when_the_token_expires_within_iots_bounds(authorizer, keys):
    def disconnect_after(left):
        return authorizer.authorize(event(keys["access"].sign(access(exp=NOW + left)))).disconnect_after

    assert disconnect_after(1800) == 1800
    assert disconnect_after(1) == 300  # IoT's shortest
    assert disconnect_after(10 * 86_400) == 86_400  # and longest


@pytest.mark.parametrize(("claims", "why"), [
    (access(exp=NOW), "the token has expired"),
    (access(exp=NOW - 1), "the token has expired"),
    (access(exp="later"), "the token has expired"),
    (access(exp=None), "the token has expired"),
    (access(client_id="another-client"), "the token is not the app client's"),
    (access(iss="https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_other"), "the token's issuer is not the user pool"),
    (access(iat=NOW + 60), "the token's iat is in the future"),
    (access(nbf=NOW + 60), "the token's nbf is in the future"),
    (access(scope="openid email"), "the token does not have the API's scopes"),
    (access(scope=None), "the token does not have the API's scopes"),
])
def test_a_token_the_apis_authorizer_would_refuse_is_not_authorized(authorizer, pool, keys, claims, why):
    verdict = authorizer.authorize(event(keys["access"].sign(claims)))
    assert (verdict.authenticated, verdict.why) == (False, why)
    assert verdict.response()["policyDocuments"] == []
    assert pool.fetched == []  # refused before its signature: no key fetched for it


def test_an_id_token_is_not_an_access_token(authorizer, keys):
    identity = {"sub": SUB, "iss": ISSUER, "aud": CLIENT, "token_use": "id", "cognito:username": SUB,
                "iat": NOW - 10, "exp": NOW + 3600}
    assert authorizer.authorize(event(keys["id"].sign(identity))).why == "the token is not an access token"
    # nor is an access token's shape signed with the ID tokens' key made one by its claims alone: the scope decides too
    assert authorizer.authorize(event(keys["id"].sign(access(token_use="id")))).why == "the token is not an access token"


def test_a_tampered_token_is_not_authorized(authorizer, keys):
    token = keys["access"].sign(access())
    header, payload, signature = token.split(".")
    raw = bytearray(unb64url(signature))
    raw[-1] ^= 1
    flipped = f"{header}.{payload}.{b64url(bytes(raw))}"
    other_racer = f"{header}.{b64url(json.dumps(access(sub='someone-else')).encode())}.{signature}"
    foreign = keys["id"].sign(access())  # another of the pool's keys, under the access key's kid
    foreign = f"{header}.{payload}.{foreign.split('.')[2]}"
    for forged in (flipped, other_racer, foreign):
        assert authorizer.authorize(event(forged)).why == "the token's signature is not valid"
    assert authorizer.authorize(event(f"{header}.{payload}.")).why == "the token's signature is not valid"


@pytest.mark.parametrize("header", [{"alg": "none"}, {"alg": "HS256"}, {"alg": "RS512"}])
def test_only_rs256_is_accepted(authorizer, keys, header):
    token = keys["access"].sign(access())
    unsigned = f"{b64url(json.dumps({**header, 'kid': keys['access'].kid}).encode())}.{token.split('.')[1]}.{token.split('.')[2]}"
    assert authorizer.authorize(event(unsigned)).why == "the token's algorithm is not RS256"


@pytest.mark.parametrize("password", ["", "not-a-token", "a.b", "a.b.c", "x.y.z.w", "eyJ.eyJ.!!"])
def test_what_is_not_a_jwt_is_not_authorized(authorizer, password):
    assert not authorizer.authorize(event(password)).authenticated


def test_a_password_that_is_not_base64_is_not_authorized(authorizer, keys):
    bad = event(keys["access"].sign(access()))
    bad["protocolData"]["mqtt"]["password"] = "%%%"
    assert authorizer.authorize(bad).why == "the password is not base64 of a token"
    del bad["protocolData"]["mqtt"]["password"]
    assert authorizer.authorize(bad).why == "no password"


@pytest.mark.parametrize("sub", ["*", "racer*", "a/b", "+", "#", "${iot:ClientId}", "r?", "", "a" * 65, "racer one"])
def test_a_sub_that_would_widen_the_policys_resource_is_not_authorized(authorizer, keys, sub):
    verdict = authorizer.authorize(event(keys["access"].sign(access(sub=sub))))
    assert (verdict.authenticated, verdict.why) == (False, "the token's sub is not a racer id")


def test_the_user_name_is_ingest_username_with_or_without_the_authorizers_query(authorizer, keys):
    token = keys["access"].sign(access())
    assert authorizer.authorize(event(token, username="alleycat")).authenticated
    for other in ("other", "other?x-amz-customauthorizer-name=AlleycatIngest", "", None):
        assert authorizer.authorize(event(token, username=other)).why == "the user name is not ingest.username"


@pytest.mark.parametrize("client", ["*", "bike-?", "${iot:ClientId}", "a\x00b", "c" * 129, 7])
def test_a_client_id_with_a_wildcard_or_a_policy_variable_is_not_authorized(authorizer, keys, client):
    assert authorizer.authorize(event(keys["access"].sign(access()), client=client)).why == \
        "a client id with a wildcard or a policy variable"


@pytest.mark.parametrize("client", [None, ""])
def test_a_connection_without_a_client_id_may_connect_as_whatever_iot_names_it(authorizer, keys, client):
    # MQTT 3.1.1's empty client id (paho's default): the server names the connection, so it can drop no other
    [policy] = authorizer.authorize(event(keys["access"].sign(access()), client=client)).policies
    assert policy["Statement"][0] == {"Effect": "Allow", "Action": "iot:Connect", "Resource": f"{PREFIX}client/*"}


def test_the_pools_keys_are_fetched_once_and_again_only_for_an_unknown_kid_now_and_then(authorizer, pool, keys):
    for _ in range(3):
        assert authorizer.authorize(event(keys["access"].sign(access()))).authenticated
    assert len(pool.fetched) == 1
    rotated = SigningKey()
    token = rotated.sign(access())
    assert authorizer.authorize(event(token)).why == "the token's kid is not a key of the user pool"  # not yet refetched
    pool.keys = {**keys, "rotated": rotated}
    authorizer.clock[0] += ingest_auth.KEYS_REFETCH_SECONDS
    assert authorizer.authorize(event(rotated.sign(access(exp=authorizer.clock[0] + 60)))).authenticated
    assert len(pool.fetched) == 2
    _, payload, signature = token.split(".")
    for kid in ("made-up-1", "made-up-2", 7):  # made-up kids within the next interval fetch nothing
        header = b64url(json.dumps({"kid": kid, "alg": "RS256"}).encode())
        assert authorizer.authorize(event(f"{header}.{payload}.{signature}")).why == \
            "the token's kid is not a key of the user pool"
    assert len(pool.fetched) == 2


def test_rs256_is_pkcs1_v1_5_with_sha256_as_cryptography_signs_it(keys):
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    jwk = keys["access"].jwk
    modulus, exponent = (int.from_bytes(unb64url(jwk[name]), "big") for name in ("n", "e"))
    token = keys["access"].sign(access())
    signed, signature = token.rsplit(".", 1)
    assert rs256_valid(modulus, exponent, signed.encode(), unb64url(signature))
    assert not rs256_valid(modulus, exponent, signed.encode() + b" ", unb64url(signature))
    assert not rs256_valid(modulus, exponent, signed.encode(), unb64url(signature)[1:])  # one byte short
    assert not rs256_valid(modulus, exponent, signed.encode(), modulus.to_bytes(256, "big"))  # not below n
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    numbers = small.public_key().public_numbers()
    assert not rs256_valid(numbers.n, numbers.e, b"m", small.sign(b"m", padding.PKCS1v15(), hashes.SHA256()))


def test_the_local_broker_matches_the_policy_as_iot_does(authorizer, keys):
    from local.mqtt import allows

    [policy] = [json.loads(text) for text in authorizer.authorize(event(keys["access"].sign(access()))).response()["policyDocuments"]]
    own = f"{PREFIX}topic/$aws/rules/alleycat_ingest/races/R1/racers/{SUB}/telemetry"
    assert allows([policy], "iot:Publish", own) and allows([policy], "IOT:publish", own)
    assert allows([policy], "iot:Connect", f"{PREFIX}client/mqttjs_1f2e3d4c")
    assert not allows([policy], "iot:Connect", f"{PREFIX}client/mqttjs_other")
    assert not allows([policy], "iot:Subscribe", own) and not allows([policy], "iot:Receive", own)
    for other in (own.replace(SUB, "someone-else"), own.replace("/telemetry", "/board"), own.replace("$aws/rules/alleycat_ingest/", ""),
                  own.replace(PREFIX, "arn:aws:iot:eu-west-1:999999999999:")):
        assert not allows([policy], "iot:Publish", other)
    # * spans levels, as in IoT's policies (the topic rule's filter and alleycat.edge.mqtt then drop such a topic)
    assert allows([policy], "iot:Publish", own.replace("/R1/", "/R1/x/"))
    deny = {"Statement": {"Effect": "Deny", "Action": ["iot:*"], "Resource": f"{PREFIX}topic/$aws/rules/alleycat_ingest/races/R?/*"}}
    assert not allows([policy, deny], "iot:Publish", own) and allows([policy, deny], "iot:Publish", own.replace("/R1/", "/R12/"))


def test_the_local_broker_connects_and_takes_publishes_as_the_policy_says_until_iot_would_disconnect(keys, pool):
    import asyncio
    from types import SimpleNamespace

    from amqtt.contexts import Action

    from local import mqtt as broker

    class Clock:
        at = float(NOW)

        def now(self):
            return self.at

    clock = Clock()
    authorizer = broker.authorizer(ISSUER, CLIENT, clock)
    authorizer.fetch = pool
    context = SimpleNamespace(config=broker.GateConfig(broker.Gate(authorizer, clock, lambda *_: None)))
    auth, topics = broker.TokenAuth(context), broker.OwnTopics(context)
    own = broker.edge.TOPIC.replace("{raceId}", "R1").replace("{racerId}", SUB)

    def session(password, client_id="amqtt/abc"):
        return SimpleNamespace(username="alleycat", password=password, client_id=client_id)

    def publishes(to, connected):
        return asyncio.run(topics.topic_filtering(session=connected, topic=to, action=Action.PUBLISH))

    bike = session(keys["access"].sign(access(exp=NOW + 400)))
    assert asyncio.run(auth.authenticate(session=bike)) is True
    assert publishes(own, bike) and not publishes(own.replace(SUB, "someone-else"), bike)
    assert not asyncio.run(topics.topic_filtering(session=bike, topic=own, action=Action.SUBSCRIBE))
    clock.at = NOW + 399
    assert publishes(own, bike)
    clock.at = NOW + 400  # the token's end: IoT Core would have closed the connection
    assert not publishes(own, bike)
    clock.at = NOW
    assert asyncio.run(auth.authenticate(session=session(keys["id"].sign(access(token_use="id"))))) is False
    assert asyncio.run(auth.authenticate(session=session(keys["access"].sign(access()), client_id="bike*"))) is False
