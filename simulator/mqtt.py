"""Bikes over MQTT (contract v1.3, "Telemetry over MQTT"): each racer's own connection to the broker
``GET /config.json``'s ``ingest`` names (MQTT 3.1.1 over its WebSocket, user name ``ingest.username``,
password the racer's access token), publishing QoS 1 to the racer's own topic.

A PUBACK means the broker received the message, not that it counted (the seconds that counted show on
the race board, ``lastSecond``): the simulator sends a second over HTTP as well when no PUBACK came in
time (a refused connection, a broker gone), which is harmless (the first value of a second wins).
"""

from __future__ import annotations

import json
import threading
from typing import Any
from urllib.parse import urlsplit

MAX_SAMPLES = 60  # a message carries 1-60 samples
CONNACK_SECONDS = 10
KEEPALIVE_SECONDS = 30


class Refused(ConnectionError):
    """The broker could not be reached, or refused the connection (CONNACK not "Success")."""


def topic(ingest: dict, race_id: str, racer_id: str) -> str:
    """``ingest.topic`` with the race and the racer filled in."""
    return ingest["topic"].replace("{raceId}", race_id).replace("{racerId}", racer_id)


def message(ingest: dict, race_id: str, samples: list[dict]) -> tuple[str, bytes]:
    """(topic, payload) of one racer's samples (1-60): the racer is the topic's, so no sample names it."""
    racers = {sample["racerId"] for sample in samples}
    if len(racers) != 1 or not 1 <= len(samples) <= MAX_SAMPLES:
        raise ValueError(f"a message carries 1-{MAX_SAMPLES} samples of one racer, not {len(samples)} of {len(racers)}")
    body = {"samples": [{name: value for name, value in sample.items() if name != "racerId"} for sample in samples]}
    return topic(ingest, race_id, racers.pop()), json.dumps(body, separators=(",", ":")).encode()


class MqttBike:
    """One racer's connection (paho-mqtt, its network loop in a thread of its own; it reconnects by itself)."""

    def __init__(self, ingest: dict, token: str):
        import paho.mqtt.client as paho  # only a simulator that rides over MQTT needs it
        from paho.mqtt.enums import CallbackAPIVersion

        self.ingest = ingest
        url = urlsplit(ingest["url"])
        self._client = client = paho.Client(CallbackAPIVersion.VERSION2, transport="websockets", protocol=paho.MQTTv311)
        client.ws_set_options(path=url.path + (f"?{url.query}" if url.query else ""))
        if url.scheme == "wss":
            client.tls_set()
        client.username_pw_set(ingest["username"], token)
        answered = threading.Event()
        reasons: list[Any] = []

        def on_connect(_client, _data, _flags, reason, _properties) -> None:
            reasons.append(reason)
            answered.set()

        client.on_connect = on_connect
        try:
            client.connect(url.hostname or "", url.port or (443 if url.scheme == "wss" else 80), keepalive=KEEPALIVE_SECONDS)
        except OSError as error:
            raise Refused(f"{ingest['url']}: {error}") from None
        client.loop_start()
        if not answered.wait(CONNACK_SECONDS) or reasons[0].is_failure:
            self.close()
            raise Refused(f"{ingest['url']}: CONNACK {reasons[0] if reasons else 'not received'}")

    def publish(self, race_id: str, samples: list[dict]) -> Any:
        """QoS 1; the message's MQTTMessageInfo (``confirmed`` waits for its PUBACK)."""
        to, payload = message(self.ingest, race_id, samples)
        return self._client.publish(to, payload, qos=1)

    @staticmethod
    def confirmed(info: Any, timeout: float) -> bool:
        """Whether the broker acknowledged the message within ``timeout`` s."""
        try:
            info.wait_for_publish(timeout=max(timeout, 0.0))
        except (RuntimeError, ValueError):  # not sent: no connection, a full queue
            return False
        return bool(info.is_published())

    def close(self) -> None:
        self._client.disconnect()  # first: its network loop then ends at once
        self._client.loop_stop()
