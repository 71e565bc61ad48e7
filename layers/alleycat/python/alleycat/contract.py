"""The contract's bodies as JSON schemas, per function: what a route takes and what it answers.

Handlers validate requests with ``REQUESTS``; ``local.openapi`` builds docs/openapi.json from
these and the route table; the fuzz tests check every answer against that document.
"""

from __future__ import annotations

ID = {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}
RACE_ID = {"type": "string", "pattern": "^[0-9A-HJKMNP-TV-Z]{26}$"}
NAME = {"type": "string", "minLength": 1, "maxLength": 80}
TIME = {"type": "string"}
NUMBER = {"type": "number"}
COUNT = {"type": "integer", "minimum": 0}
SECOND_OR_NULL = {"type": ["integer", "null"], "minimum": 0}
STATUS = {"type": "string", "enum": ["open", "finished"]}
TOKEN = {"type": ["string", "null"]}


def _object(properties: dict, required: list | None = None) -> dict:
    return {"type": "object", "required": list(properties) if required is None else required,
            "properties": properties}


def _list(item: dict) -> dict:
    return {"type": "array", "items": item}


REQUESTS = {
    "put_racer": _object({"name": NAME}),
    "put_class": _object({"name": NAME, "description": {"type": "string", "maxLength": 500}}, ["name"]),
    "create_race": _object({"startsAt": {"type": "string", "minLength": 1},
                            "durationSeconds": {"type": "integer", "minimum": 60, "maximum": 3600}}, ["startsAt"]),
    "post_telemetry": _object({"samples": {
        "type": "array", "minItems": 1, "maxItems": 1000,
        "items": _object({"racerId": ID, "second": {"type": "integer", "minimum": 0},
                          "cadence": {"type": "number", "minimum": 0, "maximum": 300},
                          "resistance": {"type": "number", "minimum": 0, "maximum": 100}}),
    }}),
}

_RACE = {"raceId": RACE_ID, "classId": ID, "startsAt": TIME, "durationSeconds": COUNT, "status": STATUS}

RESPONSES = {
    "put_racer": (200, _object({"racerId": ID, "name": NAME})),
    "get_racer_results": (200, _object({
        "racerId": ID, "name": {"type": ["string", "null"]}, "nextToken": TOKEN,
        "items": _list(_object({"raceId": RACE_ID, "classId": ID, "status": STATUS, "startsAt": TIME,
                                "score": NUMBER, "lastSecond": SECOND_OR_NULL,
                                "rank": {"type": ["integer", "null"], "minimum": 1}}))})),
    "get_racer_history": (200, _object({
        "racerId": ID, "nextToken": TOKEN,
        "races": _list(_object({"raceId": RACE_ID, "classId": ID, "samples": _list({
            "type": "array", "prefixItems": [COUNT, NUMBER, NUMBER, NUMBER], "minItems": 4, "maxItems": 4})}))})),
    "put_class": (200, _object({"classId": ID, "name": NAME, "description": {"type": "string"}})),
    "get_class_races": (200, _object({
        "classId": ID, "name": {"type": ["string", "null"]}, "nextToken": TOKEN,
        "items": _list(_object({"raceId": RACE_ID, "startsAt": TIME, "durationSeconds": COUNT, "status": STATUS,
                                "racerCount": COUNT}))})),
    "get_classes": (200, _object({
        "nextToken": TOKEN,
        "items": _list(_object({"classId": ID, "name": NAME, "description": {"type": "string"}}))})),
    "get_races": (200, _object({
        "state": {"type": "string", "enum": ["upcoming", "live", "finished"]}, "nextToken": TOKEN,
        "items": _list(_object({**_RACE, "className": {"type": "string"}, "racerCount": COUNT}))})),
    "get_class_leaderboard": (200, _object({
        "classId": ID, "name": {"type": "string"},
        "items": _list(_object({"rank": COUNT, "racerId": ID, "name": {"type": "string"}, "bestScore": NUMBER,
                                "raceId": RACE_ID}))})),
    "create_race": (201, _object(dict(_RACE))),
    "get_race": (200, _object({**_RACE, "racerCount": COUNT})),
    "join_race": (200, _object({"raceId": RACE_ID, "racerId": ID, "name": {"type": "string"}, "score": NUMBER,
                                "lastSecond": SECOND_OR_NULL})),
    "get_race_leaderboard": (200, _object({
        "raceId": RACE_ID, "classId": ID, "status": STATUS,
        "items": _list(_object({"rank": COUNT, "racerId": ID, "name": {"type": ["string", "null"]},
                                "score": NUMBER, "lastSecond": SECOND_OR_NULL}))})),
    "post_telemetry": (200, _object({"accepted": COUNT, "duplicates": COUNT, "rejected": _list(_object(
        {"racerId": ID, "second": COUNT, "reason": {"type": "string"}}))})),
    "finish_race": (200, _object({"raceId": RACE_ID, "status": {"const": "finished"}})),
}

ERROR = _object({"message": {"type": "string", "minLength": 1}}, ["message"])
