"""Telemetry over MQTT's edge (alleycat.edge.mqtt): the topic, who may publish to it, and the body's checks
(the telemetry route's sample schema, the racer the topic's, 1-60 samples). Counting is the HTTP route's flow."""

import json

import pytest

from alleycat.edge import mqtt

RACE = "01JD0000000000000000000000"
TOPIC = f"races/{RACE}/racers/racer-1/telemetry"
SAMPLE = {"second": 3, "cadence": 80, "resistance": 50}


def test_the_topic_names_the_race_and_the_racer():
    assert mqtt.TOPIC.replace("{raceId}", RACE).replace("{racerId}", "racer-1") == TOPIC
    assert mqtt.topic_ids(TOPIC) == (RACE, "racer-1")
    for other in (f"races/{RACE}/racers/racer-1/telemetry/x", f"races/{RACE}/racers/a b/telemetry",
                  f"races/{RACE}/racers/{'r' * 65}/telemetry", "races//racers/racer-1/telemetry", "board"):
        assert mqtt.topic_ids(other) is None


def test_a_racer_publishes_to_their_own_topics_only():
    assert mqtt.may_publish("racer-1", TOPIC)
    assert not mqtt.may_publish("racer-2", TOPIC)
    assert not mqtt.may_publish("racer-1", "races/x/racers/racer-1/board")


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
