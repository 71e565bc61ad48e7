"""Telemetry over MQTT (contract v1.3, "Telemetry over MQTT"): the topic a racer publishes to, the
record the topic rule puts into the log, the body's checks and the hand-over to the same flow the HTTP
route uses (``alleycat.flows.telemetry``).

A bike publishes to IoT Core's Basic Ingest topic of the telemetry rule (``TOPIC``: no messaging charge,
no broker in the path); the rule (``RULE_SQL``) puts one Kinesis record per message (``rule_record`` is
what it puts, the local stack's broker puts the same), partitioned by race and the racer's group (``PARTITION_KEY``),
and the consumer (``functions/ingest_telemetry``) hands each record's topic, payload and the rule's time
of arrival to ``ingest``. The racer is the topic's: only a racer's own topics take their publishes
(the custom authorizer's policy, ``alleycat.edge.ingest_auth``, which the local broker runs too). Nothing is answered: a body that does
not parse, a race that does not exist or is finished, samples that do not count are dropped (logged),
as the contract says; PUBACK only ever meant received.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from alleycat.edge import routes
from alleycat.errors import AlleycatError, Busy
from alleycat.flows import telemetry
from alleycat.observability import logger
from alleycat.rules.telemetry import Outcome

# GET /config.json's ``ingest.username``: what a client sends as its MQTT user name; its password is
# the racer's access token.
USERNAME = "alleycat"
# The telemetry rule's name on the local stack (an IoT rule name: letters, digits, _); the deployed rule's is
# its stack's (stacks/ingest.py), so GET /config.json names the topic with it.
RULE_NAME = "alleycat_telemetry"
# The topic as the rule sees it: under Basic Ingest, topic() leaves out the $aws/rules/<rule> prefix
# ("Reducing messaging costs with Basic Ingest"), so topic(2) is the race and topic(4) the racer.
RULE_TOPIC = "races/{raceId}/racers/{racerId}/telemetry"
RULE_FILTER = "races/+/racers/+/telemetry"  # the rule's FROM: only Basic Ingest reaches it (nobody may publish there)
BASIC_INGEST = "$aws/rules/{rule}/"


def basic_ingest_topic(rule_name: str) -> str:
    """GET /config.json's ``ingest.topic`` for the rule ``rule_name``: the client fills in the race and the racer."""
    return BASIC_INGEST.format(rule=rule_name) + RULE_TOPIC


TOPIC = basic_ingest_topic(RULE_NAME)
# What the rule puts into the stream, one JSON record a message: the payload as it came, base64 (a body that
# is not JSON still arrives, and is dropped here), the topic and the rules engine's time of arrival in epoch
# milliseconds: the server's clock for "has this second happened", whenever the record is read.
RULE_SQL = f"SELECT encode(*, 'base64') AS payload, topic() AS topic, timestamp() AS arrival FROM '{RULE_FILTER}'"
# The record's partition key (a substitution template): the race and the racer's group, the first hex digit of
# the racer id's MD5 (``rules.fanin.group_of``: 16 groups a race), so a racer's messages stay in order on one
# shard and one shard's consumer sees whole slices of a race (a race's slices nest in its groups). IoT SQL can
# cut the digest but not turn hex into a number (its casts read decimal text only: "Data types", AWS IoT
# developer guide), nor know a race's slice count: the consumer computes the slice (docs/fan-in.md).
PARTITION_KEY = "${topic(2)}/${substring(md5(topic(4)), 0, 1)}"
MAX_SAMPLES = 60  # a message carries 1-60 samples (the HTTP route takes up to 1,000)
MAX_PAYLOAD_BYTES = 256 * 1024

_ID = r"[A-Za-z0-9_-]{1,64}"
_RACE_ID = r"[^/#+]{1,128}"  # opaque: the flow answers NotFound for one no race has
_LEVEL = re.compile(r"\$\{(substring\(md5\()?topic\((\d)\)(?:\), 0, 1\))?\}")
_TOPIC = re.compile(RULE_TOPIC.replace("{raceId}", f"({_RACE_ID})").replace("{racerId}", f"({_ID})"))


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
    """(raceId, racerId) of a telemetry topic as the rule sees it (``RULE_TOPIC``), or None for any other topic."""
    found = _TOPIC.fullmatch(topic)
    return (found.group(1), found.group(2)) if found else None


def rule_topic(topic: str, rule_name: str = RULE_NAME) -> str | None:
    """What the rule's topic() gives for a publish to ``topic``: None unless it is the rule's Basic Ingest topic."""
    prefix = BASIC_INGEST.format(rule=rule_name)
    return topic[len(prefix):] if topic.startswith(prefix) else None


def rule_record(topic: str, payload: bytes, arrival: float) -> tuple[bytes, str]:
    """(Data, PartitionKey) of the record the rule puts for a publish to ``topic`` (Basic Ingest) received at
    ``arrival`` (epoch seconds): ``RULE_SQL``'s output and ``PARTITION_KEY`` evaluated, as IoT Core does."""
    seen = rule_topic(topic)
    if seen is None:
        raise Dropped(f"not the rule's Basic Ingest topic: {topic[:200]!r}")
    import hashlib  # the local broker's and the bench's: the consumer only decodes

    levels = seen.split("/")

    def evaluated(found: re.Match) -> str:
        level = levels[int(found.group(2)) - 1]
        return hashlib.md5(level.encode()).hexdigest()[:1] if found.group(1) else level

    key = _LEVEL.sub(evaluated, PARTITION_KEY)
    data = {"payload": base64.b64encode(payload).decode(), "topic": seen, "arrival": int(arrival * 1000)}
    return json.dumps(data, separators=(",", ":")).encode(), key


def decode(data: bytes) -> tuple[str, bytes, float]:
    """(topic, payload, arrival in epoch seconds) of a record the rule put; ``Dropped`` when it is not one."""
    try:
        record = json.loads(data)
        topic, arrival = record["topic"], record["arrival"]
        payload = base64.b64decode(record["payload"], validate=True)
    except (ValueError, TypeError, KeyError, binascii.Error):
        raise Dropped("not a record of the telemetry rule") from None
    if not isinstance(topic, str) or isinstance(arrival, bool) or not isinstance(arrival, int):
        raise Dropped("not a record of the telemetry rule")
    return topic, payload, arrival / 1000


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
    """A message on ``topic`` (as the rule sees it) received at ``now`` (epoch seconds, the server's clock),
    counted as the HTTP route counts a racer's own batch; None when it counts nothing (dropped, logged, never
    retried). ``Busy`` (DynamoDB throttled or did not answer) and DynamoDB's other errors are raised: the
    message was not counted and may be, sent again (the consumer's record fails and is retried)."""
    try:
        race_id, racer_id, samples, device = parse(topic, payload)
        return telemetry.ingest(race_id, samples, racer_id, False, None, device, now)
    except Busy:
        raise
    except (Dropped, AlleycatError) as error:
        logger.info("telemetry message dropped", extra={"topic": topic[:200], "reason": str(error)})
        return None
