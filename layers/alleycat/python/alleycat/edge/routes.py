"""The API's routes, one record each, declared once: the CDK stack, the local stack, the handlers,
docs/openapi.json (``local.openapi``) and the sample events (events/make_events.py) all read them.

``auth`` is "public" or "user" (a signed-in identity; the handler then checks who).
``actions`` are the only DynamoDB actions the route's function is granted.
``paged`` routes sign and check page tokens: only their functions get the signing key.
``query`` names the query parameters the route reads: the edge cache keys on exactly these;
``required`` those of them it cannot do without. ``headers`` names the request headers it reads
besides Authorization: the edge forwards them to the API.
``request`` is the JSON schema of its body (None: it takes none), checked by its handler;
``status`` and ``response`` its success answer and that answer's JSON schema.
``errors`` are the error statuses it may answer beyond every route's and every user route's
(``ANY_ROUTE``, ``USER_ROUTE``); ``contract.ERRORS`` says what each means.
``sample`` is its sample request and what it answers (``Sample``).

Adding a route: its record here, its function in ``functions/<function>/app.py``, and its test.
The records are in the order their samples run: each finds what the ones before it wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from alleycat.edge.contract import (
    COUNT,
    EQUIPMENT,
    ERRORS,
    ID,
    METRIC,
    NAME,
    NUMBER,
    NUMBER_OR_NULL,
    RACE_ID,
    RANK_OR_NULL,
    REVIEW,
    REVIEW_OR_NULL,
    SECOND_OR_NULL,
    STATUS,
    TEXT,
    TEXT_OR_NULL,
    TIME,
    TOKEN,
    array,
    obj,
)

# The error statuses every route may answer (bad input, nothing there, DynamoDB busy), and those a
# user route adds (no valid token, not this caller's to do, a body over 256 KiB).
ANY_ROUTE = (400, 404, 503)
USER_ROUTE = (401, 403, 413)

# What the sample requests name: the racer, the class, and the race ``make sam-db`` puts in the table
# (create_race picks a new id, so it cannot make that one).
SAMPLE_IDS = {"racerId": "racer-1", "classId": "hill-climb", "raceId": "01JD5Z6Q8X0000000000000000"}


@dataclass(frozen=True)
class Sample:
    """A route's sample request (its path names ``SAMPLE_IDS``; a user route's caller is an admin):
    events/<function>.json, for `sam local invoke -e` and as the tests' base event. ``answer`` is
    what its function answers when the samples run in the table's order against `make sam-db`'s
    table (tests/infrastructure/test_sam_local.py): the answer has these fields with these values,
    and a list that ends in ``...`` holds these items among others (else exactly these, in order)."""

    query: str = ""
    body: dict | None = None
    answer: dict = field(default_factory=dict)
    status: int | None = None  # what it answers, when not the route's success


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    function: str
    auth: str
    actions: tuple[str, ...]
    paged: bool = False
    query: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    request: dict | None = None
    status: int = 200
    response: dict = field(kw_only=True)
    errors: tuple[int, ...] = ()
    sample: Sample = field(kw_only=True)

    @property
    def protected(self) -> bool:
        return self.auth != "public"

    @property
    def key(self) -> str:
        """``PUT /racers/{racerId}``: the HTTP API's route key (events, stage route settings)."""
        return f"{self.method} {self.path}"

    @property
    def parameters(self) -> list[str]:
        """The path's parameters, in order: ``["raceId", "racerId"]``."""
        return [part[1:-1] for part in self.path.split("/") if part.startswith("{")]

    @property
    def error_statuses(self) -> dict[int, str]:
        """Every error status the route may answer, lowest first, with what it means."""
        statuses = {*ANY_ROUTE, *(USER_ROUTE if self.protected else ()), *self.errors}
        return {status: ERRORS[status] for status in sorted(statuses)}


PAGE, LIMIT = ("limit", "nextToken"), ("limit",)
QUERY, GET, PUT, UPDATE = "dynamodb:Query", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"
DELETE, BATCH_GET, BATCH_WRITE = "dynamodb:DeleteItem", "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem"
CONDITION_CHECK = "dynamodb:ConditionCheckItem"
# Finishing a race (an admin's call, or the finisher at the race's end): read it, then one transaction
# marks it and its gates finished and moves its catalog card.
FINISH_ACTIONS = (QUERY, UPDATE, DELETE, PUT)
CONFLICT = 409  # the race is finished
REUSED_KEY = 422  # an Idempotency-Key reused with a different body
IDEMPOTENCY_KEY = "Idempotency-Key"  # a retry with the same key gets the first answer

_RACE_FIELDS = {"raceId": RACE_ID, "classId": ID, "startsAt": TIME, "durationSeconds": COUNT, "status": STATUS}
_RACER, _CLASS, _RACE = SAMPLE_IDS["racerId"], SAMPLE_IDS["classId"], SAMPLE_IDS["raceId"]
_REVIEW_ITEM = obj({"raceId": RACE_ID, "classId": ID, "racerId": ID, "name": TEXT, "score": NUMBER, "equipment": EQUIPMENT,
                    "rules": array(TEXT), "state": REVIEW, "note": TEXT})

ROUTES: tuple[Route, ...] = (
    Route("PUT", "/classes/{classId}", "put_class", "user", (PUT, UPDATE),
          request=obj({"name": NAME, "description": {"type": "string", "maxLength": 500}, "metric": METRIC}, ["name"]),
          response=obj({"classId": ID, "name": NAME, "description": TEXT, "metric": METRIC}),
          errors=(CONFLICT,),
          sample=Sample(body={"name": "Hill climb", "description": "Steady climb, high resistance"},
                        answer={"classId": _CLASS, "name": "Hill climb", "metric": "output"})),
    Route("PUT", "/racers/{racerId}", "put_racer", "user", (PUT,),
          request=obj({"name": NAME}),
          response=obj({"racerId": ID, "name": NAME}),
          sample=Sample(body={"name": "Racer One"}, answer={"racerId": _RACER, "name": "Racer One"})),
    Route("POST", "/classes/{classId}/races", "create_race", "user", (GET, PUT, UPDATE, QUERY), headers=(IDEMPOTENCY_KEY,),
          request=obj({"startsAt": {"type": "string", "minLength": 1},
                       "durationSeconds": {"type": "integer", "minimum": 60, "maximum": 3600}}, ["startsAt"]),
          status=201, response=obj(dict(_RACE_FIELDS)), errors=(REUSED_KEY, CONFLICT),
          sample=Sample(body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 300},
                        answer={"classId": _CLASS, "startsAt": "2026-11-22T10:00:00Z", "status": "open"})),
    Route("GET", "/races/{raceId}", "get_race", "public", (QUERY,),
          response=obj({**_RACE_FIELDS, "racerCount": COUNT}),
          sample=Sample(answer={"raceId": _RACE})),
    Route("PUT", "/races/{raceId}/racers/{racerId}", "join_race", "user", (QUERY, GET, PUT, UPDATE, BATCH_GET, CONDITION_CHECK),
          request=obj({"equipment": EQUIPMENT, "device": ID}, []),
          response=obj({"raceId": RACE_ID, "racerId": ID, "name": TEXT, "score": NUMBER, "lastSecond": SECOND_OR_NULL,
                        "equipment": EQUIPMENT}),
          errors=(CONFLICT,),
          sample=Sample(body={"equipment": "trainer"}, answer={"raceId": _RACE, "racerId": _RACER, "equipment": "trainer"})),
    Route("POST", "/races/{raceId}/telemetry", "post_telemetry", "user", (GET, UPDATE, BATCH_GET),
          headers=(IDEMPOTENCY_KEY,),
          request=obj({"device": ID, "samples": {
              "type": "array", "minItems": 1, "maxItems": 1000,
              "items": obj({"racerId": ID, "second": {"type": "integer", "minimum": 0},
                            "cadence": {"type": "number", "minimum": 0, "maximum": 300},
                            "resistance": {"type": "number", "minimum": 0, "maximum": 100},
                            # bpm, from a heart-rate strap: optional (null is none sent), no part of the output
                            "heartRate": {"type": ["number", "null"], "minimum": 30, "maximum": 250},
                            # whole watts, from a smart trainer or power meter: optional, a power class's score
                            "power": {"type": ["integer", "null"], "minimum": 0, "maximum": 3000}},
                           ["racerId", "second", "cadence", "resistance"]),
          }}, ["samples"]),
          response=obj({"accepted": COUNT, "duplicates": COUNT,
                        "rejected": array(obj({"racerId": ID, "second": COUNT, "reason": TEXT}))}),
          errors=(CONFLICT, REUSED_KEY),
          sample=Sample(body={"samples": [{"racerId": _RACER, "second": 0, "cadence": 82, "resistance": 47},
                                          {"racerId": _RACER, "second": 1, "cadence": 84.5, "resistance": 47,
                                           "heartRate": 131, "power": 212}]},
                        answer={"accepted": 2, "duplicates": 0})),
    Route("GET", "/races/{raceId}/leaderboard", "get_race_leaderboard", "public", (QUERY,), query=("limit", "equipment"),
          response=obj({"raceId": RACE_ID, "classId": ID, "status": STATUS,
                        "items": array(obj({"rank": RANK_OR_NULL, "racerId": ID, "name": TEXT_OR_NULL,
                                            "score": NUMBER, "lastSecond": SECOND_OR_NULL, "equipment": EQUIPMENT,
                                            "review": REVIEW_OR_NULL}))}),
          # The telemetry sample's two seconds: (82 + 35) * (47 + 65) / 100 + (84.5 + 35) * (47 + 65) / 100
          sample=Sample(query="limit=10", answer={"items": [{"racerId": _RACER, "score": 264.88}]})),
    Route("GET", "/races/{raceId}/replay", "get_race_replay", "public", (QUERY,),
          response=obj({"raceId": RACE_ID, "classId": ID, "startsAt": TIME, "durationSeconds": COUNT,
                        "racers": array(obj({"racerId": ID, "name": TEXT_OR_NULL, "equipment": EQUIPMENT,
                                             "rank": RANK_OR_NULL})),
                        "step": COUNT, "scores": array(array(NUMBER))}),
          errors=(CONFLICT,),
          # Run after the stream processor has settled the finished sample race (local/sam_db.py's order)
          sample=Sample(answer={"raceId": _RACE, "durationSeconds": 300, "step": 1,
                                "racers": [{"racerId": _RACER, "equipment": "trainer", "rank": 1}]})),
    Route("GET", "/racers/{racerId}/results", "get_racer_results", "public", (QUERY,), paged=True, query=PAGE,
          response=obj({"racerId": ID, "name": TEXT_OR_NULL, "nextToken": TOKEN,
                        "items": array(obj({"raceId": RACE_ID, "classId": ID, "status": STATUS, "startsAt": TIME,
                                            "score": NUMBER, "lastSecond": SECOND_OR_NULL, "rank": RANK_OR_NULL,
                                            "equipment": EQUIPMENT, "review": REVIEW_OR_NULL,
                                            "rules": array(TEXT), "note": TEXT},
                                           ["raceId", "classId", "status", "startsAt", "score", "lastSecond", "rank",
                                            "equipment", "review"]))}),
          sample=Sample(query="limit=10", answer={"items": [{"raceId": _RACE}]})),
    Route("GET", "/racers/{racerId}/history", "get_racer_history", "public", (QUERY, GET), paged=True,
          query=("raceId", "nextToken"),
          response=obj({"racerId": ID, "nextToken": TOKEN, "races": array(obj({
              "raceId": RACE_ID, "classId": ID, "samples": array({
                  "type": "array", "prefixItems": [COUNT, NUMBER, NUMBER, NUMBER, NUMBER_OR_NULL, NUMBER_OR_NULL],
                  "minItems": 6, "maxItems": 6})}))}),
          # Each accepted second: [second, cadence, resistance, output, heartRate, power (null: none sent)]
          sample=Sample(query=f"raceId={_RACE}", answer={"races": [
              {"raceId": _RACE, "samples": [[0, 82, 47, 131.04, None, None], [1, 84.5, 47, 133.84, 131, 212]]}]})),
    Route("GET", "/classes/{classId}/races", "get_class_races", "public", (QUERY,), paged=True, query=PAGE,
          response=obj({"classId": ID, "name": TEXT_OR_NULL, "nextToken": TOKEN,
                        "items": array(obj({"raceId": RACE_ID, "startsAt": TIME, "durationSeconds": COUNT,
                                            "status": STATUS, "racerCount": COUNT}))}),
          sample=Sample(query="limit=10", answer={"items": [{"raceId": _RACE}, ...]})),
    Route("GET", "/classes", "get_classes", "public", (QUERY,), paged=True, query=PAGE,
          response=obj({"nextToken": TOKEN, "items": array(obj({"classId": ID, "name": NAME, "description": TEXT,
                                                               "metric": METRIC}))}),
          sample=Sample(query="limit=10", answer={"items": [{"classId": _CLASS}]})),
    Route("GET", "/races", "get_races", "public", (QUERY,), paged=True, query=("state", "limit", "nextToken"),
          required=("state",),
          response=obj({"state": {"type": "string", "enum": ["upcoming", "live", "finished"]}, "nextToken": TOKEN,
                        "items": array(obj({**_RACE_FIELDS, "className": TEXT, "racerCount": COUNT}))}),
          sample=Sample(query="state=upcoming&limit=10",
                        answer={"items": [{"raceId": _RACE, "className": "Hill climb"}, ...]})),
    Route("POST", "/races/{raceId}/finish", "finish_race", "user", FINISH_ACTIONS,
          response=obj({"raceId": RACE_ID, "status": {"const": "finished"}}),
          sample=Sample(answer={"raceId": _RACE, "status": "finished"})),
    Route("GET", "/classes/{classId}/leaderboard", "get_class_leaderboard", "public", (QUERY,), query=LIMIT,
          response=obj({"classId": ID, "name": TEXT, "metric": METRIC, "items": array(obj({
              "rank": COUNT, "racerId": ID, "name": TEXT, "bestScore": NUMBER, "raceId": RACE_ID}))}),
          sample=Sample(query="limit=10", answer={"classId": _CLASS})),
    Route("POST", "/races/{raceId}/racers/{racerId}/review", "review_ride", "user", (GET, UPDATE, PUT, DELETE),
          request=obj({"decision": {"type": "string", "enum": ["clear", "disqualify"]},
                       "note": {"type": "string", "maxLength": 500}}, ["decision"]),
          response=_REVIEW_ITEM,
          sample=Sample(body={"decision": "clear", "note": "Checked the trainer's file"},
                        answer={"raceId": _RACE, "racerId": _RACER, "state": "cleared"})),
    Route("GET", "/reviews", "get_reviews", "user", (QUERY,), paged=True, query=("state", "limit", "nextToken"),
          required=("state",),
          response=obj({"state": REVIEW, "nextToken": TOKEN, "items": array(_REVIEW_ITEM)}),
          sample=Sample(query="state=cleared&limit=10", answer={"items": [{"raceId": _RACE, "racerId": _RACER}]})),
)

_BY_FUNCTION = {route.function: route for route in ROUTES}


def by_function(function: str) -> Route:
    """The route the function in ``functions/<function>`` serves."""
    return _BY_FUNCTION[function]
