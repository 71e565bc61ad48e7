"""Telemetry over MQTT's edge (alleycat.edge.mqtt): the topic, who may publish to it, the record the topic rule
puts into the log, and the body's checks (the telemetry route's sample schema, the racer the topic's, 1-60
samples). Counting is the HTTP route's flow."""

import base64
import hashlib
import json

import pytest

from alleycat.edge import mqtt

RACE = "01JD0000000000000000000000"
TOPIC = f"races/{RACE}/racers/racer-1/telemetry"  # as the rule sees it
PUBLISHED = f"$aws/rules/alleycat_telemetry/{TOPIC}"  # as the bike publishes it (Basic Ingest)
SAMPLE = {"second": 3, "cadence": 80, "resistance": 50}


def test_the_topic_names_the_race_and_the_racer():
    assert mqtt.TOPIC.replace("{raceId}", RACE).replace("{racerId}", "racer-1") == PUBLISHED
    assert mqtt.rule_topic(PUBLISHED) == TOPIC and mqtt.rule_topic(TOPIC) is None
    assert mqtt.rule_topic(PUBLISHED.replace("alleycat_telemetry", "other")) is None
    assert mqtt.topic_ids(TOPIC) == (RACE, "racer-1")
    for other in (f"races/{RACE}/racers/racer-1/telemetry/x", f"races/{RACE}/racers/a b/telemetry",
                  f"races/{RACE}/racers/{'r' * 65}/telemetry", "races//racers/racer-1/telemetry", "board"):
        assert mqtt.topic_ids(other) is None


@pytest.mark.parametrize("payload", [json.dumps({"samples": [SAMPLE]}).encode(), b"\xff\x00not json", b""])
def test_the_rule_puts_the_payload_as_it_came_the_topic_it_sees_and_its_arrival_keyed_by_race_and_group(payload):
    data, key = mqtt.rule_record(PUBLISHED, payload, 1795345200.1234)
    assert key == f"{RACE}/{hashlib.md5(b'racer-1').hexdigest()[0]}"  # the race, the racer's group
    assert json.loads(data) == {"payload": base64.b64encode(payload).decode(), "topic": TOPIC, "arrival": 1795345200123}
    assert mqtt.decode(data) == (TOPIC, payload, 1795345200.123)


def test_the_sql_and_the_key_are_the_ones_the_record_is_made_by():
    assert mqtt.RULE_SQL == ("SELECT encode(*, 'base64') AS payload, topic() AS topic, timestamp() AS arrival "
                             "FROM 'races/+/racers/+/telemetry'")
    assert mqtt.PARTITION_KEY == "${topic(2)}/${substring(md5(topic(4)), 0, 1)}"
    with pytest.raises(mqtt.Dropped):
        mqtt.rule_record(TOPIC, b"{}", 0.0)


@pytest.mark.parametrize("data", [b"", b"[]", b'{"topic": "t", "arrival": 1}', b'{"payload": "!!", "topic": "t", "arrival": 1}',
                                  b'{"payload": "", "topic": 1, "arrival": 1}', b'{"payload": "", "topic": "t", "arrival": true}',
                                  b'{"payload": "", "topic": "t", "arrival": "1"}'])
def test_a_record_the_rule_did_not_put_is_dropped(data):
    with pytest.raises(mqtt.Dropped):
        mqtt.decode(data)


def test_a_body_gives_the_samples_with_the_topics_racer_and_the_device():
    body = {"device": "browser-1", "samples": [SAMPLE, {**SAMPLE, "second": 4, "heartRate": 120, "power": 200}]}
    assert mqtt.parse(TOPIC, json.dumps(body).encode()) == (
        RACE, "racer-1", [{**SAMPLE, "racerId": "racer-1"},
                          {**SAMPLE, "second": 4, "heartRate": 120, "power": 200, "racerId": "racer-1"}], "browser-1")
    assert mqtt.parse(TOPIC, json.dumps({"samples": [{**SAMPLE, "racerId": "racer-1"}]}))[3] is None


@pytest.mark.parametrize("payload", [
    b"", b"not json", b"\xff", b"[]", b'{"samples": [{"second": 1, "cadence": NaN, "resistance": 1}]}',
    json.dumps({"samples": []}).encode(),
    json.dumps({"samples": [SAMPLE] * 61}).encode(),
    json.dumps({"samples": [{**SAMPLE, "cadence": 301}]}).encode(),
    json.dumps({"samples": [{"second": 1, "cadence": 80}]}).encode(),
    json.dumps({"samples": [{**SAMPLE, "racerId": "racer-2"}]}).encode(),
    json.dumps({"device": "a b", "samples": [SAMPLE]}).encode(),
    b"[" * 100_000,
    b" " * (mqtt.MAX_PAYLOAD_BYTES + 1),
])
def test_a_body_that_is_not_telemetry_is_dropped(payload):
    with pytest.raises(mqtt.Dropped):
        mqtt.parse(TOPIC, payload)


def test_a_message_on_another_topic_is_dropped_without_reaching_the_flow():
    assert mqtt.ingest("board", json.dumps({"samples": [SAMPLE]}).encode(), 0.0) is None
    assert mqtt.ingest(TOPIC, b"not json", 0.0) is None
