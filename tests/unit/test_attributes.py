"""storage/attributes: Python values to DynamoDB's AttributeValue shapes and back. Expected shapes
are DynamoDB's own (API Reference, "AttributeValue": S, N as a string, BOOL, NULL true, M, L, B,
NS and SS as lists), written out here."""

from decimal import Decimal

import pytest

from alleycat.storage import attributes


@pytest.mark.parametrize("value, attr", [
    ("bob", {"S": "bob"}),
    ("", {"S": ""}),
    (True, {"BOOL": True}),
    (False, {"BOOL": False}),
    (7, {"N": "7"}),
    (-3, {"N": "-3"}),
    (Decimal("12.3456"), {"N": "12.3456"}),
    (0.5, {"N": "0.5"}),
    (None, {"NULL": True}),
    ({"a": 1, "b": [True, None]}, {"M": {"a": {"N": "1"}, "b": {"L": [{"BOOL": True}, {"NULL": True}]}}}),
    ((1, "x"), {"L": [{"N": "1"}, {"S": "x"}]}),
    (b"\x00\xff", {"B": b"\x00\xff"}),
    (bytearray(b"ab"), {"B": b"ab"}),
    ({3, 1, 2}, {"NS": ["1", "2", "3"]}),
    (frozenset({10}), {"NS": ["10"]}),
])
def test_a_value_becomes_its_attribute(value, attr):
    assert attributes.to_attr(value) == attr


def test_a_boolean_is_never_stored_as_a_number():
    # bool is a subclass of int in Python; DynamoDB's BOOL is its own type.
    assert attributes.to_attr(True) == {"BOOL": True}
    assert type(attributes.to_attr(True)["BOOL"]) is bool


@pytest.mark.parametrize("value, kind", [
    (set(), "set"),                # DynamoDB refuses an empty set
    ({"a", "b"}, "set"),           # a set of strings is not a number set: this code stores none
    ({1, "a"}, "set"),
    (object(), "object"),
    (1j, "complex"),
])
def test_what_dynamodb_cannot_hold_is_a_type_error_naming_the_type(value, kind):
    with pytest.raises(TypeError, match=f"\\b{kind}\\b"):
        attributes.to_attr(value)


@pytest.mark.parametrize("attr, value", [
    ({"S": "bob"}, "bob"),
    ({"N": "7"}, 7),
    ({"N": "-0"}, 0),
    ({"NULL": True}, None),
    ({"BOOL": False}, False),
    ({"BOOL": True}, True),
    ({"M": {"a": {"N": "1"}}}, {"a": 1}),
    ({"L": [{"S": "x"}, {"NULL": True}]}, ["x", None]),
    ({"B": b"\x00\xff"}, b"\x00\xff"),      # boto3 hands bytes
    ({"B": "AP8="}, b"\x00\xff"),           # a Lambda stream event hands base64 text
    ({"NS": ["1", "2.5"]}, {1, Decimal("2.5")}),
    ({"SS": ["a", "b"]}, {"a", "b"}),
])
def test_an_attribute_becomes_its_value(attr, value):
    result = attributes.from_attr(attr)
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize("text, value", [
    ("12", 12),
    ("12.5", Decimal("12.5")),
    ("1e3", Decimal("1000")),
    ("1E3", Decimal("1000")),
    ("2.5E-1", Decimal("0.25")),
])
def test_a_number_is_an_int_when_written_without_point_or_exponent(text, value):
    result = attributes.from_attr({"N": text})
    assert result == value
    assert type(result) is type(value)


def test_an_integral_number_is_an_int_not_a_decimal():
    assert type(attributes.from_attr({"N": "5"})) is int
    assert {type(v) for v in attributes.from_attr({"NS": ["5", "6"]})} == {int}


def test_an_unknown_kind_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="BS"):
        attributes.from_attr({"BS": [b"a"]})


def test_an_item_leaves_out_none_and_reads_back():
    assert attributes.to_item({"a": 1, "b": None, "c": "x"}) == {"a": {"N": "1"}, "c": {"S": "x"}}
    assert attributes.from_item({"a": {"N": "1"}, "c": {"S": "x"}}) == {"a": 1, "c": "x"}
