"""Regenerates the sample events in this folder: `.venv/bin/python events/make_events.py` (the venv
has the layer and the local stack installed: requirements-dev.txt).

One per route, its record's sample (``alleycat.edge.routes``: query and body, the path naming
``SAMPLE_IDS``) shaped as the HTTP API sends it (payload format 2.0, the JWT authorizer's
Cognito claims on the protected routes), and one for the stream processor: the records the table's stream
holds once the sample race is finished (`post_telemetry.json`'s samples in racer-1's first chunk, then the
race finished by the finisher), and one for the finisher
(what a race's finish schedule sends it), one for the ticker (what the stream processor sends it
when the race is created), and one for the telemetry log's consumer (the Kinesis record the topic rule
puts for racer-1's message of the seconds also sent over HTTP). Used by the
integration tests and by `sam local invoke -e`.
"""

import base64
import json
from pathlib import Path

from alleycat.edge import mqtt
from alleycat.edge.routes import ROUTES, SAMPLE_IDS, by_function
from alleycat.rules.samples import Sample
from alleycat.storage import entities as e
from local.events import http_event
from local.kinesis import lambda_record
from stacks.settings import (
    AUTHORIZER,
    FINISHER,
    HISTORY_WRITER,
    INGEST_CONSUMER,
    KEY_ROTATOR,
    STREAM_PROCESSOR,
    TICKER,
    TOKEN_GROUPS,
)

HERE = Path(__file__).resolve().parent

RACE_ID = SAMPLE_IDS["raceId"]
TELEMETRY = by_function("post_telemetry")  # the stream processor's sample is the record its sample writes
# A Cognito ID token's claims as the JWT authorizer passes them: every value a string.
CLAIMS = {"sub": "racer-1", "cognito:groups": "[admin]", "token_use": "id", "email_verified": "true",
          "iss": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example", "aud": "exampleclientid",
          "auth_time": "1763805000", "iat": "1763805000", "exp": "1763808600"}
HOST = "abc123.execute-api.eu-west-1.amazonaws.com"
# When each sample request reaches the API: a year before the sample race (2026-11-22T10:00:00Z), so the
# race it creates is upcoming; telemetry an hour after that race's start, so every second of a race of
# that start (up to 3,600 s) has happened by the server's clock (Domain, contract v1.2).
REQUEST_TIME = ("22/Nov/2025:10:00:00 +0000", 1763805600000)
REQUEST_TIMES = {"post_telemetry": ("22/Nov/2026:11:00:00 +0000", 1795345200000)}
LOG_ARN = "arn:aws:kinesis:eu-west-1:123456789012:stream/Alleycat-IngestTelemetryLog"
STREAM_ARN = ("arn:aws:dynamodb:eu-west-1:123456789012:table/Alleycat-DataTable/stream/"
              "2026-11-22T09:00:00.000")


def stream_event() -> dict:
    """What the table's stream holds once the sample race is finished (local/sam_db.py runs the stream
    processor then): racer-1's chunk 0 before and after the telemetry sample, and the race before and after
    the finisher finished it (which asks for its settlement)."""
    samples = {s["second"]: Sample(s["cadence"], s["resistance"]) for s in TELEMETRY.sample.body["samples"]}
    chunk = dict(raceId=RACE_ID, racerId=SAMPLE_IDS["racerId"], chunk=0, classId=SAMPLE_IDS["classId"])
    old_chunk = e.Chunk(**chunk).to_item()
    new_chunk = e.Chunk(**chunk, points=sum(sample.output for sample in samples.values()), samples=samples).to_item()
    race = dict(raceId=RACE_ID, classId=SAMPLE_IDS["classId"], className="Hill climb", startsAt="2026-11-22T10:00:00Z",
                durationSeconds=300, racerCount=1)
    old_race = e.Race(**race).to_item()
    new_race = e.Race(**race, status=e.FINISHED, finishRequests=1).to_item()
    return {"Records": [record(1, new_chunk, old_chunk, 180), record(2, new_race, old_race, 260)]}


def block_event() -> dict:
    """A second block's record, as the history writer's mapping delivers it: the sample race's slice 0, second 0,
    a racer's first value counted (the fan-in, docs/fan-in.md)."""
    from alleycat.rules.fanin import Counted

    block = dict(raceId=RACE_ID, slice=0, second=0)
    counted = Counted(Sample(80, 50), "AAAA")
    return {"Records": [record(3, e.SecondBlock(**block, racers={"Q2x": counted}).to_item(),
                               e.SecondBlock(**block).to_item(), 120)]}


def as_json(value):
    """A binary attribute as Lambda delivers a stream record's: base64."""
    return base64.b64encode(value).decode() if isinstance(value, bytes) else str(value)


def log_event() -> dict:
    """What the telemetry log holds after racer-1 published, an hour into the sample race, to its Basic Ingest
    topic the seconds it also sent over HTTP (``post_telemetry.json``), the cadence read a little differently:
    the first value wins, so the record counts nothing new and what the stream processor's sample scores stands."""
    topic = mqtt.TOPIC.format(raceId=RACE_ID, racerId=SAMPLE_IDS["racerId"])
    body = {"samples": [{**{k: v for k, v in sample.items() if k != "racerId"}, "cadence": 90}
                        for sample in TELEMETRY.sample.body["samples"]]}
    arrival = REQUEST_TIMES["post_telemetry"][1] / 1000
    data, key = mqtt.rule_record(topic, json.dumps(body).encode(), arrival)
    sequence = "49657000000000000000000000000000000000000000000000000002"
    return {"Records": [{**lambda_record("shardId-000000000000", sequence, key, data, arrival + 0.021, LOG_ARN),
                         "awsRegion": "eu-west-1",
                         "invokeIdentityArn": "arn:aws:iam::123456789012:role/Alleycat-IngestTelemetryRole"}]}


def record(number: int, new: dict, old: dict, size: int) -> dict:
    """A MODIFY record of the table's stream (NEW_AND_OLD_IMAGES), the ``number``-th of its shard."""
    return {"eventID": f"5f0f6a1c3b9e4d0e8a7f2b1c0d9e8f7{number}", "eventName": "MODIFY", "eventVersion": "1.1",
            "eventSource": "aws:dynamodb", "awsRegion": "eu-west-1", "eventSourceARN": STREAM_ARN,
            "dynamodb": {"ApproximateCreationDateTime": 1763805600 + number, "Keys": {k: new[k] for k in ("PK", "SK")},
                         "NewImage": new, "OldImage": old, "SequenceNumber": f"1000000000000000000{number:02d}",
                         "SizeBytes": size, "StreamViewType": "NEW_AND_OLD_IMAGES"}}


def texts() -> dict[str, str]:
    """Each sample event's file name in this folder, and its text."""
    files = {}
    for route in ROUTES:
        path = route.path
        for name in route.parameters:
            path = path.replace(f"{{{name}}}", SAMPLE_IDS[name])
        body = json.dumps(route.sample.body) if route.sample.body is not None else None
        headers = {"Accept": "application/json", "Host": HOST, "User-Agent": "curl/8.5.0", "X-Forwarded-For": "203.0.113.10",
                   "X-Forwarded-Port": "443", "X-Forwarded-Proto": "https"}
        if body:
            headers["Content-Type"] = "application/json"
        if route.protected:
            headers["Authorization"] = "eyJraWQiOi...example"
        event = http_event(route, path, {name: SAMPLE_IDS[name] for name in route.parameters}, route.sample.query,
                           headers.items(), body, CLAIMS if route.protected else None, "203.0.113.10")
        event["requestContext"].update({"accountId": "123456789012", "apiId": "abc123",
                                        "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
                                        **dict(zip(("time", "timeEpoch"), REQUEST_TIMES.get(route.function, REQUEST_TIME), strict=True))})
        files[f"{route.function}.json"] = json.dumps(event, indent=2) + "\n"
    files[f"{STREAM_PROCESSOR}.json"] = json.dumps(stream_event(), indent=2, default=str) + "\n"
    files[f"{FINISHER}.json"] = json.dumps({"raceId": RACE_ID}, indent=2) + "\n"
    files[f"{TICKER}.json"] = json.dumps({"raceId": RACE_ID}, indent=2) + "\n"
    files[f"{INGEST_CONSUMER}.json"] = json.dumps(log_event(), indent=2) + "\n"
    files[f"{HISTORY_WRITER}.json"] = json.dumps(block_event(), indent=2, default=as_json) + "\n"
    files[f"{TOKEN_GROUPS}.json"] = json.dumps(token_event(), indent=2) + "\n"
    files[f"{AUTHORIZER}.json"] = json.dumps(authorizer_event(), indent=2) + "\n"
    # Secrets Manager's first step of a rotation of the page-token keys (not run by `sam local invoke`: docs/local.md)
    files[f"{KEY_ROTATOR}.json"] = json.dumps({
        "SecretId": "arn:aws:secretsmanager:us-east-1:123456789012:secret:PageTokenKeys-AbCdEf",
        "ClientRequestToken": "8f7d1c3e-0b6a-4e58-9a1f-3c2d5e6f7a8b", "Step": "createSecret"}, indent=2) + "\n"
    return files


def main() -> None:
    for name, text in texts().items():
        (HERE / name).write_text(text)


def token_event() -> dict:
    """Cognito's pre-token-generation event (version 2) for a racer signing in through managed login."""
    return {"version": "2", "triggerSource": "TokenGeneration_HostedAuth", "region": "us-east-1",
            "userPoolId": "us-east-1_EXAMPLE", "userName": CLAIMS["sub"],
            "callerContext": {"awsSdkVersion": "aws-sdk-unknown-unknown", "clientId": "example-client-id"},
            "request": {"userAttributes": {"sub": CLAIMS["sub"], "email": "rider@example.com", "email_verified": "true"},
                        "groupConfiguration": {"groupsToOverride": [], "iamRolesToOverride": [], "preferredRole": None},
                        "scopes": ["openid", "email", "profile", "aws.cognito.signin.user.admin"]},
            "response": {"claimsAndScopeOverrideDetails": None}}


def authorizer_event() -> dict:
    """IoT Core's custom authorizer event for a bike's MQTT connection over WebSocket: ``ingest.username`` naming
    the authorizer, the racer's access token as the password (base64, as IoT hands it), mqtt.js's client id.
    The token is an example pool's, expired, its signature made up: refused, with no call (no JWKS fetched)."""
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).decode().rstrip("=")

    claims = {"sub": CLAIMS["sub"], "iss": CLAIMS["iss"], "client_id": CLAIMS["aud"], "token_use": "access",
              "scope": "openid email profile aws.cognito.signin.user.admin", "auth_time": 1763805000, "iat": 1763805000,
              "exp": 1763808600, "username": CLAIMS["sub"]}
    token = f"{part({'kid': 'example-key-id', 'alg': 'RS256'})}.{part(claims)}.c2lnbmF0dXJlLW1hZGUtdXA"
    return {"token": "", "signatureVerified": False, "protocols": ["tls", "http", "mqtt"],
            "protocolData": {"tls": {"serverName": "a1b2c3d4e5f6g7-ats.iot.eu-west-1.amazonaws.com"},
                             "http": {"headers": {"host": "a1b2c3d4e5f6g7-ats.iot.eu-west-1.amazonaws.com"}, "queryString": ""},
                             "mqtt": {"username": "alleycat?x-amz-customauthorizer-name=IngestAuthAuthorizer-EXAMPLE",
                                      "password": base64.b64encode(token.encode()).decode(),
                                      "clientId": "mqttjs_5f0f6a1c"}},
            "connectionMetadata": {"id": "6f6b2a3c-1d1e-4c47-9e1f-0a1b2c3d4e5f"}}


if __name__ == "__main__":
    main()
