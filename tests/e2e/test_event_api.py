"""The local stand-in for AppSync Events, met by a client written from AWS's documentation.

The client below follows "Understanding the Event API WebSocket protocol" and "Publish events via
HTTP" of the AWS AppSync Events developer guide, with the `websockets` package as a plain RFC 6455
client (nothing of local/eventapi.py): subprotocols ``aws-appsync-event-ws`` and
``header-<base64url(JSON authorization)>``, ``connection_init`` -> ``connection_ack``, ``subscribe``
-> ``subscribe_success``/``subscribe_error``, ``data`` with each event as a JSON string, ``ka``,
``unsubscribe`` -> ``unsubscribe_success``; publishing is ``POST /event`` with
``{"channel", "events": [JSON strings]}``, here signed with SigV4 (the namespace takes IAM only).
"""

import asyncio
import base64
import json
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect

from local.eventapi import EventApi

PROTOCOL = "aws-appsync-event-ws"
ACCESS_KEY, SECRET_KEY, REGION = "AKIDLOCAL", "local-secret", "eu-west-1"


@pytest.fixture(scope="module")
def api():
    running = EventApi(access_key=ACCESS_KEY, secret_key=SECRET_KEY, region=REGION, keep_alive_seconds=0.3).start()
    yield running
    running.stop()


def header(authorization: dict) -> str:
    """The documented second subprotocol: the authorization headers as base64url JSON, no padding."""
    encoded = base64.urlsafe_b64encode(json.dumps(authorization).encode()).decode().rstrip("=")
    return f"header-{encoded}"


class DocClient:
    """A subscriber as the guide describes one."""

    def __init__(self, api: EventApi, key: str | None = None):
        self.url = api.realtime_url
        self.authorization = {"host": api.http_host, "x-api-key": key or api.api_key}
        self.socket = None

    async def connect(self) -> dict:
        self.socket = await connect(self.url, subprotocols=[PROTOCOL, header(self.authorization)], compression=None)
        assert self.socket.subprotocol == PROTOCOL
        await self.send({"type": "connection_init"})
        return await self.receive()

    async def send(self, message: dict) -> None:
        await self.socket.send(json.dumps(message))

    async def receive(self, skip_ka: bool = True) -> dict:
        while True:
            message = json.loads(await asyncio.wait_for(self.socket.recv(), 5))
            if not (skip_ka and message["type"] == "ka"):
                return message

    async def subscribe(self, sub_id: str, channel: str, authorization: dict | None = None) -> dict:
        await self.send({"type": "subscribe", "id": sub_id, "channel": channel,
                         "authorization": authorization or self.authorization})
        return await self.receive()

    async def close(self) -> None:
        await self.socket.close()


def publish(api: EventApi, channel: str, events: list, *, sign=True, credentials=(ACCESS_KEY, SECRET_KEY),
            region=REGION, api_key: str | None = None, raw: bytes | None = None) -> tuple[int, dict]:
    """``POST https://<http domain>/event`` as documented, signed with botocore's SigV4 (service appsync)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    body = raw if raw is not None else json.dumps({"channel": channel, "events": [json.dumps(e) for e in events]}).encode()
    headers = {"content-type": "application/json"}
    if api_key:
        headers["x-api-key"] = api_key
    request = AWSRequest("POST", api.http_url, data=body, headers=headers)
    if sign:
        SigV4Auth(Credentials(*credentials), "appsync", region).add_auth(request)
    sent = urllib.request.Request(api.http_url, data=body, method="POST", headers=dict(request.headers.items()))
    try:
        with urllib.request.urlopen(sent, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def run(coroutine):
    return asyncio.run(coroutine)


def test_connect_subscribe_receive_each_event_and_unsubscribe(api):
    async def scenario():
        client = DocClient(api)
        # When a client connects with the documented subprotocols and says connection_init
        ack = await client.connect()
        # Then the API acknowledges with the time a silent connection may last
        assert ack == {"type": "connection_ack", "connectionTimeoutMs": 300_000}
        # When it subscribes to a race's channel / Then the subscription is confirmed by its id
        assert await client.subscribe("sub-1", "/races/RACE1") == {"type": "subscribe_success", "id": "sub-1"}
        # When a publisher posts two events on that channel (and one on another)
        assert publish(api, "/races/RACE2", [{"n": 0}])[0] == 200
        status, answer = publish(api, "/races/RACE1", [{"n": 1}, {"n": 2, "rows": [[1, "a", 2.5, 3]]}])
        # Then the publish is answered as AppSync answers it
        assert status == 200 and answer["failed"] == []
        assert [entry["index"] for entry in answer["successful"]] == [0, 1]
        # And the subscriber gets each event of its channel, in order, as a JSON string
        first, second = await client.receive(), await client.receive()
        assert first["type"] == "data" and first["id"] == "sub-1" and isinstance(first["event"], str)
        assert [json.loads(first["event"]), json.loads(second["event"])] == [{"n": 1}, {"n": 2, "rows": [[1, "a", 2.5, 3]]}]
        # When it unsubscribes / Then that is confirmed, and nothing more arrives for it
        await client.send({"type": "unsubscribe", "id": "sub-1"})
        assert await client.receive() == {"type": "unsubscribe_success", "id": "sub-1"}
        publish(api, "/races/RACE1", [{"n": 3}])
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(client.receive(), 0.8)
        await client.close()

    run(scenario())


def test_keep_alive_messages_arrive_while_the_connection_is_quiet(api):
    async def scenario():
        client = DocClient(api)
        await client.connect()
        assert await client.receive(skip_ka=False) == {"type": "ka"}
        assert await client.receive(skip_ka=False) == {"type": "ka"}
        await client.close()

    run(scenario())


def test_a_wildcard_subscription_gets_every_race_below_the_namespace(api):
    async def scenario():
        client = DocClient(api)
        await client.connect()
        assert (await client.subscribe("all", "/races/*"))["type"] == "subscribe_success"
        publish(api, "/races/RACE9", [{"race": 9}])
        message = await client.receive()
        assert (message["id"], json.loads(message["event"])) == ("all", {"race": 9})
        await client.close()

    run(scenario())


@pytest.mark.parametrize("channel, authorization, error_type", [
    ("/races/RACE1", {"x-api-key": "da2-wrong"}, "UnauthorizedException"),
    ("/races/RACE1", {}, "UnauthorizedException"),
    ("/boards/RACE1", None, "BadRequestException"),       # no such namespace
    ("races/RACE1", None, "BadRequestException"),         # not a channel path
    ("/races/" + "x" * 51, None, "BadRequestException"),   # a segment over 50 characters
    ("/races/a/b/c/d/e", None, "BadRequestException"),     # over 5 segments
    ("/races/RACE_1", None, "BadRequestException"),        # letters, digits and dashes only
])
def test_subscriptions_that_are_refused(api, channel, authorization, error_type):
    async def scenario():
        client = DocClient(api)
        await client.connect()
        auth = None if authorization is None else {"host": api.http_host, **authorization}
        answer = await client.subscribe("s", channel, auth)
        assert answer["type"] == "subscribe_error" and answer["id"] == "s"
        assert answer["errors"][0]["errorType"] == error_type and answer["errors"][0]["message"]
        await client.close()

    run(scenario())


def test_a_viewer_cannot_publish_over_the_socket_and_odd_messages_get_errors(api):
    async def scenario():
        client = DocClient(api)
        await client.connect()
        await client.subscribe("s", "/races/RACE1")
        # When a viewer publishes over its WebSocket with the API key
        await client.send({"type": "publish", "id": "p", "channel": "/races/RACE1", "events": ['{"fake": 1}'],
                           "authorization": client.authorization})
        # Then it is refused, and nobody gets the event
        answer = await client.receive()
        assert answer["type"] == "publish_error" and answer["errors"][0]["errorType"] == "UnauthorizedException"
        # And a message that is not JSON, or of no known type, gets an error
        await client.socket.send("not json")
        assert (await client.receive())["type"] == "error"
        await client.send({"type": "launch"})
        assert (await client.receive())["type"] == "error"
        # And unsubscribing what was never subscribed is an unsubscribe_error
        await client.send({"type": "unsubscribe", "id": "nope"})
        assert (await client.receive())["type"] == "unsubscribe_error"
        await client.close()

    run(scenario())


def test_handshakes_without_the_protocol_or_the_key_are_refused(api):
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    async def status_of(subprotocols):
        try:
            async with connect(api.realtime_url, subprotocols=subprotocols):
                return 101
        except InvalidStatus as refused:
            return refused.response.status_code

    good = header({"host": api.http_host, "x-api-key": api.api_key})
    assert run(status_of([PROTOCOL, good])) == 101
    assert run(status_of([good])) == 400
    assert run(status_of([PROTOCOL])) == 401
    assert run(status_of([PROTOCOL, header({"host": api.http_host, "x-api-key": "da2-nope"})])) == 401
    assert run(status_of([PROTOCOL, header({"host": "elsewhere", "x-api-key": api.api_key})])) == 401


def test_a_connection_holds_at_most_appsyncs_hundred_subscriptions(api):
    # AppSync's quota: 100 subscriptions per connection (docs.aws.amazon.com/general/latest/gr/appsync.html)
    async def scenario():
        client = DocClient(api)
        await client.connect()
        for number in range(100):
            assert (await client.subscribe(f"s{number}", f"/races/R{number}"))["type"] == "subscribe_success", number
        refused = await client.subscribe("s100", "/races/R100")
        assert refused["type"] == "subscribe_error" and refused["errors"][0]["errorType"] == "MaxSubscriptionsReachedError"
        # An unsubscribe frees a place; another connection has its own hundred
        await client.send({"type": "unsubscribe", "id": "s0"})
        assert (await client.receive())["type"] == "unsubscribe_success"
        assert (await client.subscribe("s100", "/races/R100"))["type"] == "subscribe_success"
        other = DocClient(api)
        await other.connect()
        assert (await other.subscribe("s0", "/races/R0"))["type"] == "subscribe_success"
        await client.close()
        await other.close()
    run(scenario())


def test_http_publish_takes_iam_only(api):
    # An API key (what viewers hold) cannot publish, signed or not by someone else
    status, answer = publish(api, "/races/R", [{}], sign=False, api_key=api.api_key)
    assert status == 401 and answer["errors"][0]["errorType"] == "UnauthorizedException"
    assert publish(api, "/races/R", [{}], credentials=(ACCESS_KEY, "guessed"))[0] == 401
    status, answer = publish(api, "/races/R", [{}], credentials=("AKIDOTHER", SECRET_KEY))
    assert status == 401 and answer["errors"][0] == {"errorType": "UnrecognizedClientException",
                                                     "message": "The security token included in the request is invalid."}
    assert publish(api, "/races/R", [{}], region="us-east-1")[0] == 401
    assert publish(api, "/races/R", [{}], sign=False)[0] == 401


@pytest.mark.parametrize("body", [
    {"channel": "/races/R", "events": []},
    {"channel": "/races/R", "events": ["{}"] * 6},       # over the batch of 5
    {"channel": "/races/R", "events": ["not json"]},
    {"channel": "/races/R", "events": [{"an": "object, not a string"}]},
    {"channel": "/races/*", "events": ["{}"]},           # a publish names one channel
    {"channel": "/elsewhere/R", "events": ["{}"]},
    {"events": ["{}"]},
])
def test_http_publish_rejects_what_appsync_rejects(api, body):
    status, answer = publish(api, "", [], raw=json.dumps(body).encode())
    assert status == 400 and answer["errors"][0]["errorType"] == "BadRequestException"
