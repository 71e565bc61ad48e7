"""Telemetry over MQTT (contract v1.3, "Telemetry over MQTT"): the topic a racer publishes to, the
body's checks and the hand-over to the same flow the HTTP route uses (``alleycat.flows.telemetry``).

Whatever carries the message (the local stack's broker today; IoT Core and a topic rule later) hands
``ingest`` the topic and the payload as they arrived, and the server's time of arrival. The racer is
the topic's: the broker lets a racer publish to their own topics only (``may_publish``). Nothing is
answered: a body that does not parse, a race that does not exist or is finished, samples that do not
count are dropped (logged), as the contract says; PUBACK only ever meant received.
"""

from __future__ import annotations

import json
import re

from alleycat.edge import routes
from alleycat.errors import AlleycatError
from alleycat.flows import telemetry
from alleycat.observability import logger
from alleycat.rules.telemetry import Outcome

# GET /config.json's ``ingest.username``: what a client sends as its MQTT user name; its password is
# the racer's access token.
USERNAME = "alleycat"
# GET /config.json's ``ingest.topic``: the client fills in the race and the racer.
TOPIC = "races/{raceId}/racers/{racerId}/telemetry"
MAX_SAMPLES = 60  # a message carries 1-60 samples (the HTTP route takes up to 1,000)
MAX_PAYLOAD_BYTES = 256 * 1024

_ID = r"[A-Za-z0-9_-]{1,64}"
_RACE_ID = r"[^/#+]{1,128}"  # opaque: the flow answers NotFound for one no race has
_TOPIC = re.compile(TOPIC.replace("{raceId}", f"({_RACE_ID})").replace("{racerId}", f"({_ID})"))


def _schema() -> dict:
    """The telemetry route's body schema, the racer left out of each sample (it is the topic's), 1-60 samples."""
    request = routes.by_function("post_telemetry").request
    assert request is not None  # the route takes a body
    samples = request["properties"]["samples"]
    item = samples["items"]
    return {**request, "properties": {**request["properties"], "samples": {
        **samples, "maxItems": MAX_SAMPLES,
        "items": {**item, "properties": {name: value for name, value in item["properties"].items() if name != "racerId"},
                  "required": [name for name in item["required"] if name != "racerId"]}}}}


SCHEMA = _schema()


class Dropped(ValueError):
    """A message that counts nothing: why, for the log."""


def topic_ids(topic: str) -> tuple[str, str] | None:
    """(raceId, racerId) of a telemetry topic, or None for any other topic."""
    found = _TOPIC.fullmatch(topic)
    return (found.group(1), found.group(2)) if found else None


def may_publish(sub: str, topic: str) -> bool:
    """A racer (the token's ``sub``) publishes to their own telemetry topics only."""
    ids = topic_ids(topic)
    return ids is not None and ids[1] == sub


def parse(topic: str, payload: bytes | str) -> tuple[str, str, list[dict], str | None]:
    """(raceId, racerId, samples each with the topic's racerId, device) of a message; ``Dropped`` says why not."""
    from alleycat.edge import http

    ids = topic_ids(topic)
    if ids is None:
        raise Dropped(f"not a telemetry topic: {topic[:200]!r}")
    raw = payload.encode() if isinstance(payload, str) else bytes(payload)
    if len(raw) > MAX_PAYLOAD_BYTES:
        raise Dropped("the body is larger than 256 KiB")
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=http._no_constants)
    except (ValueError, RecursionError):
        raise Dropped("the body is not valid JSON") from None
    problem = http._shape_problem(body)
    if problem:
        raise Dropped(f"invalid body: {problem}")
    import fastjsonschema

    try:
        http._validator(json.dumps(SCHEMA, sort_keys=True))(body)
    except fastjsonschema.JsonSchemaValueException as error:
        raise Dropped(f"invalid body: {error.message}") from None
    race_id, racer_id = ids
    if any(sample.get("racerId", racer_id) != racer_id for sample in body["samples"]):
        raise Dropped("a sample names another racer than the topic's")
    return race_id, racer_id, [{**sample, "racerId": racer_id} for sample in body["samples"]], body.get("device")


def ingest(topic: str, payload: bytes | str, now: float) -> Outcome | None:
    """A message received at ``now`` (epoch seconds, the server's clock), counted as the HTTP route counts
    a racer's own batch; None when it was dropped (logged, never raised: a broker or a rule goes on)."""
    try:
        race_id, racer_id, samples, device = parse(topic, payload)
        return telemetry.ingest(race_id, samples, racer_id, False, None, device, now)
    except (Dropped, AlleycatError) as error:
        logger.info("telemetry message dropped", extra={"topic": topic[:200], "reason": str(error)})
        return None
