"""A schema-based fuzz of the local stack: no 5xx, and every answer matches docs/openapi.json.

Bodies come from the document's request schemas (valid ones, and near misses: fields
dropped or replaced by any JSON); path parameters are known ids, valid-looking ids or any text.
hypothesis-jsonschema 0.23 does not run on this Hypothesis, so ``from_schema`` below covers
the keywords the layer's schemas use.
"""

import re
import urllib.parse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from alleycat.edge.routes import ROUTES
from local.openapi import PARAMETERS


def text(min_size=0, max_size=20):
    """Any text, lone surrogates and NULs included (JSON carries them; UTF-8 and DynamoDB do not)."""
    return st.text(min_size=min_size, max_size=max_size) | st.text(
        st.characters(min_codepoint=0, max_codepoint=0xE010), min_size=min_size, max_size=max_size)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text(max_size=10),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=8)


def from_schema(schema: dict):
    """Values the schema accepts, for the keywords the routes' request schemas use (alleycat.edge.routes)."""
    kind = schema.get("type")
    if isinstance(kind, list):  # e.g. ["number", "null"]: a value of any of them
        return st.one_of([st.none() if one == "null" else from_schema({**schema, "type": one}) for one in kind])
    if kind == "object":
        required = set(schema.get("required", []))
        fields = {name: from_schema(inner) for name, inner in schema["properties"].items()}
        return st.fixed_dictionaries({n: s for n, s in fields.items() if n in required},
                                     optional={n: s for n, s in fields.items() if n not in required})
    if kind == "array":
        return st.lists(from_schema(schema["items"]), min_size=schema.get("minItems", 0),
                        max_size=min(schema.get("maxItems", 5), 5))
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return text(schema.get("minLength", 0), min(schema.get("maxLength", 30), 30))
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "number":
        return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False) | \
            st.integers(schema.get("minimum"), schema.get("maximum"))
    raise ValueError(f"no strategy for {schema}")


def near_miss(schema: dict):
    """An object like the schema's with one field replaced by any JSON (or dropped)."""
    return from_schema(schema).flatmap(lambda valid: st.sampled_from(sorted(valid) or [""]).flatmap(
        lambda name: JSON.map(lambda junk: {**valid, name: junk} if name else junk)))


@pytest.fixture(scope="module")
def document(client):
    status, served = client.call("GET", "/openapi.json")
    assert status == 200 and served["openapi"].startswith("3.1")
    return served


@pytest.fixture(scope="module")
def world(client):
    admin = client.token("ops", ["admin"])
    client.call("PUT", "/classes/fuzz-class", {"name": "Fuzz"}, token=admin)
    client.call("PUT", "/racers/fuzz-racer", {"name": "Fuzzy"}, token=admin)
    race = client.call("POST", "/classes/fuzz-class/races", {"startsAt": client.starts_in()}, token=admin)[1]
    client.call("PUT", f"/races/{race['raceId']}/racers/fuzz-racer", token=admin)
    return {"admin": admin, "racerId": "fuzz-racer", "classId": "fuzz-class", "raceId": race["raceId"]}


def parameter(name, world):
    known = st.just(world[name])
    valid = from_schema(PARAMETERS[name])
    return st.one_of(known, valid, text(1, 80))


def check(document, route, status, body):
    assert status < 500 or status == 503, (route.function, status, body)
    answers = document["paths"][route.path][route.method.lower()]["responses"]
    assert str(status) in answers, (route.function, status, body)
    schema = answers[str(status)]["content"]["application/json"]["schema"]
    if "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    errors = sorted(Draft202012Validator(schema).iter_errors(body), key=str)
    assert not errors, (route.function, status, body, errors[0].message)


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_no_request_gets_a_5xx_and_every_answer_matches_the_document(client, document, world, route):
    operation = document["paths"][route.path][route.method.lower()]
    names = re.findall(r"\{(\w+)\}", route.path)
    queries = [p["name"] for p in operation["parameters"] if p["in"] == "query"]
    body_schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    bodies = st.one_of(from_schema(body_schema), near_miss(body_schema), JSON) if body_schema else st.none()

    @settings(max_examples=25, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
    @given(path=st.fixed_dictionaries({name: parameter(name, world) for name in names}),
           query=st.dictionaries(st.sampled_from(queries), text(), max_size=len(queries))
           if queries else st.just({}),
           body=bodies, signed_in=st.booleans())
    def fuzz(path, query, body, signed_in):
        url = route.path
        for name, value in path.items():
            url = url.replace("{" + name + "}", urllib.parse.quote(value, safe="", errors="surrogatepass"))
        if query:
            url += "?" + urllib.parse.urlencode(query, errors="surrogatepass")
        status, answer = client.call(route.method, url, body, token=world["admin"] if signed_in else None)
        check(document, route, status, answer)

    fuzz()
