import pytest

from alleycat.storage import keys


def sample_values():
    return {"racerId": "bob", "classId": "hill", "raceId": "01JD5Z6Q8X0000000000000000",
            "shard": 3, "copy": 4, "chunk": 7, "part": 2, "requestKey": "req-1", "status": "open",
            "startsAt": "2026-11-22T10:00:00Z", "state": "pending", "at": "2026-11-22T10:05:00Z"}


WIDTHS = {"shard": 2, "copy": 2, "chunk": 3, "part": 2}


def test_every_entity_key_round_trips():
    # Given every declared entity and values for its placeholders
    for entity in keys.ENTITIES.values():
        # When its key is built and parsed back
        key = entity.key(sample_values())
        parts = entity.parse(key)
        # Then the parts are the values it was built from
        for name, value in parts.items():
            expected = sample_values()[name]
            assert value == (f"{expected:0{WIDTHS[name]}d}" if name in WIDTHS else expected)


def test_missing_placeholder_raises():
    with pytest.raises(keys.InvalidKey, match="racerId"):
        keys.ENTRY.key({"raceId": "01JD5Z6Q8X0000000000000000"})


def test_separator_in_a_value_is_refused():
    with pytest.raises(keys.InvalidKey):
        keys.RACER.key({"racerId": "bob#RACE"})


def test_no_template_parses_another_entitys_key():
    # Given the key of each entity
    for owner in keys.ENTITIES.values():
        key = owner.key(sample_values())
        # Then no other entity's templates accept it
        for other in keys.ENTITIES.values():
            if other is owner:
                continue
            with pytest.raises(keys.InvalidKey):
                other.parse(key)


def test_prefix_stops_at_the_first_missing_placeholder():
    assert keys.CHUNK.sk.prefix() == "HIST#"
    assert keys.CHUNK.sk.prefix(raceId="R1") == "HIST#R1#"
    assert keys.CHUNK.sk.prefix(raceId="R1", racerId="bob") == "HIST#R1#bob#"


def test_profile_sorts_after_results_in_the_racer_partition():
    # The results query relies on this order: descending, the profile comes first.
    profile = keys.RACER.sk.build({"racerId": "bob"})
    result = keys.ENTRY.sk.build({"raceId": "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"})
    assert profile > result > keys.ENTRY.sk.prefix()


def test_past_bounds_every_key_with_the_prefix():
    # The live and upcoming lists split the open races at a time with this bound.
    at = keys.RACE_CARD.sk.past(startsAt="2026-11-22T10:00:00Z")
    card = lambda starts_at: keys.RACE_CARD.sk.build({"startsAt": starts_at, "raceId": "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"})
    assert card("2026-11-22T09:59:59Z") < card("2026-11-22T10:00:00Z") < at < card("2026-11-22T10:00:01Z")


def test_catalog_cards_stay_out_of_the_class_partition_of_the_index():
    # races by class reads the index partition CLASS#<classId>: no card may have that sort key.
    values = sample_values()
    assert keys.CLASS_CARD.sk.build(values) != keys.CLASS.sk.build(values)
    assert not keys.RACE_CARD.sk.build(values).startswith(keys.CLASS.sk.prefix())
