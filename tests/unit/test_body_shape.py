"""What the API refuses in a body before its schema looks at it (alleycat.edge.http)."""

import json

import pytest

from alleycat.edge.http import MAX_BODY_DEPTH, NOT_UNICODE, TOO_DEEP, _shape_problem


def levels(depth: int) -> list:
    """Arrays ``depth`` levels deep, built without recursion."""
    body: list = []
    for _ in range(depth - 1):
        body = [body]
    return body


def test_the_deepest_body_allowed_passes_and_one_level_more_does_not():
    assert _shape_problem(levels(MAX_BODY_DEPTH)) is None
    assert _shape_problem(levels(MAX_BODY_DEPTH + 1)) == TOO_DEEP
    assert _shape_problem({"samples": [{"racerId": "a", "second": 1}]}) is None


def test_depth_is_counted_whatever_the_containers_and_wherever_they_sit():
    deep = {"a": [{"b": levels(MAX_BODY_DEPTH - 3)}]}
    assert _shape_problem(deep) is None
    deep["a"][0]["b"] = levels(MAX_BODY_DEPTH - 2)
    assert _shape_problem(deep) == TOO_DEEP
    assert _shape_problem({"ok": 1, "later": levels(MAX_BODY_DEPTH)}) == TOO_DEEP


def test_a_body_as_deep_as_the_parser_goes_is_walked_without_recursion():
    parsed = json.loads("[" * 5000 + "]" * 5000)  # past Python's recursion limit of 1,000
    assert _shape_problem(parsed) == TOO_DEEP


@pytest.mark.parametrize("body, where", [
    ("\ud800", "the body"),
    ({"name": "Amy \udfff"}, "name"),
    ([{"a": {"b": ["x", "\ud83d"]}}], "the body[0].a.b[1]"),
    ({"\ud800": 1}, "a field name in the body"),
    ({"a": {"ok": "x", "\ud800": 1}}, "a field name in a"),
    ({"first": "\ud800", "second": "\udfff"}, "first"),
])
def test_text_utf8_cannot_encode_is_found_and_its_place_named(body, where):
    assert _shape_problem(body) == f"{where} {NOT_UNICODE}"


def test_real_astral_characters_and_every_json_type_pass():
    assert _shape_problem({"name": "Amy 🚴", "n": 1.5, "t": True, "z": None, "l": []}) is None
