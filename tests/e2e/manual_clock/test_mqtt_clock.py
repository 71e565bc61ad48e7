"""Telemetry over MQTT on the stack's clock (a test's, which it moves): a second counts only once it has
happened by the server's clock at the message's arrival, as over HTTP (contract v1.3)."""

import time

from ..test_mqtt_ingest import closed, connect, history, new_race, publish, sample, topic
from .browsing import after_the_history_writer


def test_a_second_published_before_it_happened_counts_only_when_sent_again_after(stack, client):
    # Given a race starting now on the stack's clock, a racer joined and connected over MQTT
    ingest = client.call("GET", "/config.json")[1]["ingest"]
    race_id, (racer,) = new_race(client, 1, ridden=0)
    bike = connect(ingest, client.token(racer))
    assert bike.connack == "Success"
    to = topic(ingest, race_id, racer)
    try:
        # When second 30 is published now, with second 0 after it
        publish(bike, to, {"samples": [sample(30)]})
        publish(bike, to, {"samples": [sample(0)]})
        assert after_the_history_writer(stack, lambda: history(client, race_id, racer), lambda s: s == [0], "second 0") == [0]
        time.sleep(0.3)
        # Then only second 0 counted; once 40 s have passed for the stack, second 30 sent again counts
        assert history(client, race_id, racer) == [0]
        stack.clock.advance(40)
        publish(bike, to, {"samples": [sample(30)]})
        assert after_the_history_writer(stack, lambda: history(client, race_id, racer), lambda s: s == [0, 30],
                                        "seconds 0 and 30") == [0, 30]
    finally:
        closed(bike)
