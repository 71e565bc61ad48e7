"""The ride page's MQTT transport (frontend/src/ingest.js) with mqtt.js, run in Node against the local stack's
broker (local.mqtt: amqtt, MQTT 3.1.1 over a WebSocket, its plugins as ``make local`` runs them; the tokens'
authorizer a stand-in that knows two tokens): a batch is split into messages of at most 60 samples on the racer's
own topic, each acknowledged; a refreshed token connects again with it; a refused token or a broker that cannot be
reached answers false at once (the page then sends over HTTP) and is not tried again for a while."""

import base64
import json
import socket
import time

import pytest

from alleycat.edge import ingest_auth
from alleycat.edge.mqtt import TOPIC
from local.mqtt import Gate, MqttBroker, authorizer

from .nodejs import ROOT, over

TOKENS = {"token-1": {"sub": "amy", "exp": 4_000_000_000}, "token-2": {"sub": "amy", "exp": 4_000_000_000}}


class Authorizer:
    """The custom authorizer's answer for the two tokens it knows (``alleycat.edge.ingest_auth``'s policy for the
    racer and this connection), refused for any other: the broker matches the policy as it does on ``make local``."""

    def __init__(self):
        self.seen = []
        self.config = authorizer("https://pool.example", "site", Clock).config

    def authorize(self, event):
        mqtt = event["protocolData"]["mqtt"]
        token = base64.b64decode(mqtt["password"]).decode()
        self.seen.append(token)
        claims = TOKENS.get(token)
        if claims is None:
            return ingest_auth.Verdict(False, why="not a token this pool issued")
        return ingest_auth.Verdict(True, ingest_auth.principal(claims["sub"]),
                                   (ingest_auth.policy(self.config, claims["sub"], mqtt["clientId"]),), 3600)


class Clock:
    @staticmethod
    def now():
        return time.time()


@pytest.fixture(scope="module")
def broker():
    received = []
    authorizer = Authorizer()
    running = MqttBroker(Gate(authorizer, Clock(), lambda topic, payload, _: received.append((topic, payload)))).start()
    running.received, running.authorizer = received, authorizer
    yield running
    running.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_ride_publishes_over_mqtt_and_says_when_it_could_not(broker, tmp_path):
    ingest = {**broker.config}
    mqtt_js = (ROOT / "node_modules" / "mqtt" / "build" / "index.js").as_uri()
    js = over(tmp_path, ingest="ingest.js")
    got = js(f"""
      const {{ default: mqtt }} = await import({json.dumps(mqtt_js)});
      const load = async () => mqtt;
      let token = "token-1";
      const ride = new ingest.MqttIngest({json.dumps(ingest)}, "R1", "amy", {{ load, token: async () => token }});
      const s = (second) => ({{ racerId: "amy", second, cadence: 80, resistance: 50 }});
      const first = await ride.publish(Array.from({{ length: 70 }}, (_, i) => s(i)), "dev-1");
      token = "token-2";  // refreshed
      const refreshed = await ride.publish([s(70)]);
      ride.stop();
      let now = 0;
      const refusedRide = new ingest.MqttIngest({json.dumps(ingest)}, "R1", "amy", {{ load, token: async () => "forged", now: () => now }});
      const refused = await refusedRide.publish([s(71)]);
      const again = await refusedRide.publish([s(71)]);  // within DOWN_MS: not tried
      now += ingest.DOWN_MS;
      const later = await refusedRide.publish([s(71)]);  // tried again
      refusedRide.stop();
      const gone = new ingest.MqttIngest({{ ...{json.dumps(ingest)}, url: "ws://127.0.0.1:{free_port()}/mqtt" }}, "R1", "amy",
        {{ load, token: async () => "token-1" }});
      const unreachable = await gone.publish([s(72)]);
      gone.stop();
      return {{ first, refreshed, refused, again, later, unreachable }};""")
    # Then the first batch went as two messages (60 + 10) to amy's own topic, with the device, without the racer
    assert got == {"first": True, "refreshed": True, "refused": False, "again": False, "later": False, "unreachable": False}
    deadline = time.monotonic() + 5
    while len(broker.received) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    # (each message is handed to the flow from a thread of its own: in any order)
    bodies = sorted(((topic, json.loads(payload)) for topic, payload in broker.received),
                    key=lambda message: message[1]["samples"][0]["second"])
    assert [topic for topic, _ in bodies] == [TOPIC.format(raceId="R1", racerId="amy")] * 3
    assert [len(body["samples"]) for _, body in bodies] == [60, 10, 1]
    assert [body.get("device") for _, body in bodies] == ["dev-1", "dev-1", None]
    assert [s["second"] for _, body in bodies for s in body["samples"]] == list(range(71))
    assert all(set(s) == {"second", "cadence", "resistance"} for _, body in bodies for s in body["samples"])
    # and the refreshed token connected again; the forged one was tried twice, DOWN_MS apart
    assert broker.authorizer.seen == ["token-1", "token-2", "forged", "forged"]
