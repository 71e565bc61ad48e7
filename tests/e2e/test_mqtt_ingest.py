"""Telemetry over MQTT on the local stack (contract v1.3, "Telemetry over MQTT"): a real client (paho-mqtt,
MQTT 3.1.1 over the WebSocket GET /config.json names) against the stack's broker (local.mqtt)."""

import itertools
import json
import time
from decimal import Decimal
from urllib.parse import urlsplit

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from alleycat.rules.scores import number, output

_ids = itertools.count()


def connect(ingest, password, username=None):
    """A paho client connected over the WebSocket (its CONNACK's reason code an attribute), or raises."""
    url = urlsplit(ingest["url"])
    client = paho.Client(CallbackAPIVersion.VERSION2, transport="websockets", protocol=paho.MQTTv311)
    client.ws_set_options(path=url.path)
    client.username_pw_set(ingest["username"] if username is None else username, password)
    answered = []
    client.on_connect = lambda _client, _data, _flags, reason, _properties: answered.append(reason)
    client.connect(url.hostname, url.port, keepalive=30)
    client.loop_start()
    deadline = time.monotonic() + 5
    while not answered and time.monotonic() < deadline:
        time.sleep(0.01)
    client.connack = answered[0] if answered else None
    return client


def publish(client, topic, body):
    """QoS 1: returns once the broker acknowledged it (PUBACK: received, not counted)."""
    info = client.publish(topic, body if isinstance(body, bytes | str) else json.dumps(body), qos=1)
    info.wait_for_publish(timeout=5)
    assert info.is_published()


def closed(client):
    client.disconnect()  # first: its network loop then ends at once (stopped first, it waits out a 1-s select)
    client.loop_stop()


@pytest.fixture(scope="module")
def ingest(client):
    return client.call("GET", "/config.json")[1]["ingest"]


def new_race(client, racers, ridden):
    n = next(_ids)
    admin = client.token("ops", ["admin"])
    class_id = f"mqtt-class-{n}"
    client.call("PUT", f"/classes/{class_id}", {"name": f"MQTT {n}"}, admin)
    race_id = client.call("POST", f"/classes/{class_id}/races",
                          {"startsAt": client.starts_in(-ridden), "durationSeconds": 300}, admin)[1]["raceId"]
    names = [f"mqtt-{n}-{i}" for i in range(racers)]
    for racer_id in names:
        token = client.token(racer_id)
        client.call("PUT", f"/racers/{racer_id}", {"name": racer_id.title()}, token)
        assert client.call("PUT", f"/races/{race_id}/racers/{racer_id}", token=token)[0] == 200
    return race_id, names


def topic(ingest, race_id, racer_id):
    return ingest["topic"].replace("{raceId}", race_id).replace("{racerId}", racer_id)


def sample(second, cadence=80, resistance=50):
    return {"second": second, "cadence": cadence, "resistance": resistance}


def history(client, race_id, racer_id):
    races = client.call("GET", f"/racers/{racer_id}/history?raceId={race_id}")[1]["races"]
    return [row[0] for race in races for row in race["samples"]]


def board(client, race_id):
    return {row["racerId"]: (row["score"], row["lastSecond"])
            for row in client.call("GET", f"/races/{race_id}/leaderboard?limit=100")[1]["items"]}


def until(read, expected, timeout=10):
    deadline = time.monotonic() + timeout
    while (found := read()) != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def test_config_json_names_the_broker(ingest, stack):
    assert ingest == {"url": f"ws://127.0.0.1:{stack.mqtt.port}/mqtt", "username": "alleycat",
                      "topic": "$aws/rules/alleycat_telemetry/races/{raceId}/racers/{racerId}/telemetry"}


def test_seconds_over_mqtt_and_http_count_once_each(client, ingest):
    # Given a racer who joined over HTTP a race 20 s in
    race_id, (racer,) = new_race(client, 1, ridden=20)
    token = client.token(racer)
    bike = connect(ingest, token)
    assert bike.connack == 0
    try:
        # When seconds 0-9 go over MQTT (QoS 1 and QoS 0), then 5-14 over HTTP, then 0-4 over MQTT again
        publish(bike, topic(ingest, race_id, racer), {"samples": [sample(s) for s in range(5)]})
        bike.publish(topic(ingest, race_id, racer), json.dumps({"samples": [sample(s) for s in range(5, 10)]}), qos=0)
        assert until(lambda: history(client, race_id, racer), list(range(10))) == list(range(10))
        answer = client.call("POST", f"/races/{race_id}/telemetry",
                             {"samples": [{"racerId": racer, **sample(s, cadence=60)} for s in range(5, 15)]}, token)[1]
        publish(bike, topic(ingest, race_id, racer), {"samples": [sample(s, cadence=99) for s in range(5)]})
        time.sleep(0.5)
    finally:
        closed(bike)
    # Then each second is stored once, the first value standing, and the board sums each once
    assert answer == {"accepted": 5, "duplicates": 5, "rejected": []}
    stored = [(s, 80 if s < 10 else 60) for s in range(15)]
    rows = lambda: [(row[0], row[1]) for row in client.call("GET", f"/racers/{racer}/history?raceId={race_id}")[1]["races"][0]["samples"]]
    assert until(rows, stored) == stored  # the history writer's window (1 s on this stack) after the board
    expected = number(sum((output(80 if s < 10 else 60, 50) for s in range(15)), Decimal(0)))
    assert until(lambda: board(client, race_id), {racer: (expected, 14)}) == {racer: (expected, 14)}


def test_a_bad_token_is_not_authorized(client, ingest):
    # CONNACK return code 5 (MQTT 3.1.1), which paho names as MQTT 5's "Not authorized"
    assert closed_with(connect(ingest, "not-a-token")) == "Not authorized"
    assert closed_with(connect(ingest, client.token("someone"), username="other")) == "Not authorized"
    forged = client.token("someone")[:-4] + "AAAA"
    assert closed_with(connect(ingest, forged)) == "Not authorized"
    assert closed_with(connect(ingest, client.token("someone"))) == "Success"


def closed_with(client):
    closed(client)
    return client.connack


def test_another_racers_topic_and_a_malformed_body_count_nothing(client, ingest):
    # Given two racers in a race 20 s in, the first connected with their own token
    race_id, (racer, other) = new_race(client, 2, ridden=20)
    bike = connect(ingest, client.token(racer))
    assert bike.connack == 0
    try:
        # When it publishes to the other's topic, then bodies that are not telemetry, then a good one
        publish(bike, topic(ingest, race_id, other), {"samples": [sample(s) for s in range(5)]})
        for bad in (b"not json", {"samples": []}, {"samples": [sample(0, cadence=400)]},
                    {"samples": [sample(s) for s in range(61)]}, {"samples": [{**sample(0), "racerId": other}]}, b"\xff"):
            publish(bike, topic(ingest, race_id, racer), bad)
        publish(bike, topic(ingest, race_id, racer), {"samples": [sample(3)]})
        # Then only the good one counted (seen before disconnecting: amqtt drops a message it acknowledged
        # but had not yet handed on when its client goes), nothing for the other racer, the connection went on
        assert until(lambda: history(client, race_id, racer), [3]) == [3]
    finally:
        closed(bike)
    assert history(client, race_id, other) == []
    assert until(lambda: board(client, race_id).get(racer, (None, None))[1], 3) == 3
    assert board(client, race_id)[other][1] is None
