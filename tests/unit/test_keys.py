import pytest

from alleycat.storage import keys


def sample_values():
    return {"racerId": "bob", "classId": "hill", "raceId": "01JD5Z6Q8X0000000000000000",
            "shard": 3, "copy": 4, "chunk": 7, "part": 2, "requestKey": "req-1", "status": "open", "batch": "4900000000001",
            "startsAt": "2026-11-22T10:00:00Z", "state": "pending", "at": "2026-11-22T10:05:00Z", "slice": 5, "second": 42, "tag": "b0b",
            "request": "q7Zx-1_a"}


WIDTHS = {"shard": 2, "copy": 2, "chunk": 3, "part": 2, "slice": 3, "second": 4}


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


def test_a_template_names_its_placeholders_in_order():
    assert keys.KeyTemplate("HIST#{raceId}#{racerId}#{chunk:03d}").fields == ("raceId", "racerId", "chunk")
    assert keys.KeyTemplate("CLASSES").fields == ()


def test_an_entity_is_its_two_templates():
    entity = keys._entity("Thing", "THING#{a}", "PART#{b:02d}")
    assert entity.entity == "Thing"
    assert entity.key({"a": "x", "b": 7}) == {"PK": "THING#x", "SK": "PART#07"}


def test_the_race_ticker_is_a_declared_entity_out_of_the_race_partition():
    assert keys.ENTITIES["RaceTicker"].key({"raceId": "R1"}) == {"PK": "TICK#R1", "SK": "TICK#R1"}


@pytest.mark.parametrize("empty", ["", None])
def test_an_empty_value_is_refused(empty):
    with pytest.raises(keys.InvalidKey, match="racerId"):
        keys.RACER.key({"racerId": empty})


def test_the_refusal_of_a_separator_names_the_part():
    with pytest.raises(keys.InvalidKey, match="racerId"):
        keys.RACER.key({"racerId": "bob#RACE"})


@pytest.mark.parametrize("key", [
    "RACER#bob#x",           # trailing text after the last part: the parser is anchored at the end
    "RACER#",                # an empty part
    "XRACER#bob",            # text before the template's
    "racer#bob",             # another case
])
def test_a_key_that_is_not_exactly_of_the_template_is_refused(key):
    assert not keys.RACER.pk.matches(key)
    with pytest.raises(keys.InvalidKey, match="RACER#"):
        keys.RACER.pk.parse(key)


@pytest.mark.parametrize("key", ["BOARD#R1#3", "BOARD#R1#003", "BOARD#R1#ab", "BOARD#R1#+3"])
def test_a_fixed_width_number_has_exactly_its_digits(key):
    # {shard:02d}: two digits, no more, no fewer.
    assert not keys.RACE_BOARD.sk.matches(key)
    with pytest.raises(keys.InvalidKey):
        keys.RACE_BOARD.sk.parse(key)


def test_a_part_never_spans_a_separator():
    # HIST#{raceId}#{racerId}#{chunk:03d}: a raceId holding '#' would make "R1#x" one part.
    assert keys.CHUNK.sk.parse("HIST#R1#bob#007") == {"raceId": "R1", "racerId": "bob", "chunk": "007"}
    assert not keys.CHUNK.sk.matches("HIST#R1#x#bob#007")
    assert not keys.RACER.pk.matches("RACER#bob#alice")


@pytest.mark.parametrize("key", [None, 5, b"RACER#bob", ["RACER#bob"]])
def test_what_is_not_text_is_no_key(key):
    assert keys.RACER.pk.matches(key) is False
    with pytest.raises(keys.InvalidKey):
        keys.RACER.pk.parse(key)


def test_a_key_matches_its_own_template():
    assert keys.RACER.pk.matches("RACER#bob") is True


def test_an_entity_whose_pk_and_sk_disagree_is_refused_naming_the_part():
    with pytest.raises(keys.InvalidKey, match="racerId"):
        keys.RACER.parse({"PK": "RACER#bob", "SK": "RACER#alice"})


def test_past_is_the_prefix_with_its_last_character_raised_by_one():
    # "CARD#2026-11-22T10:00:00Z#": the next string above every key it begins is ...Z$ ('#' + 1 is '$').
    assert keys.RACE_CARD.sk.past(startsAt="2026-11-22T10:00:00Z") == "CARD#2026-11-22T10:00:00Z$"
    assert keys.CHUNK.sk.past(raceId="R1", racerId="bob") == "HIST#R1#bob$"
    assert keys.CLASS_CARD.pk.past() == "CLASSET"


def test_past_needs_text_before_the_first_placeholder():
    with pytest.raises(keys.InvalidKey, match=r"\{b\}#A"):
        keys.KeyTemplate("{b}#A").past()


def test_prefix_with_every_placeholder_given_is_the_whole_key():
    assert keys.CHUNK.sk.prefix(raceId="R1", racerId="bob", chunk=7) == "HIST#R1#bob#007"
    assert keys.CLASS_CARD.pk.prefix() == "CLASSES"


@pytest.mark.parametrize("entity", [keys.SECOND_BLOCK, keys.SLICE_TAG, keys.TELEMETRY_REQUEST])
def test_no_two_races_or_slices_fan_in_items_share_an_inverted_index_partition(entity):
    # The index's partition key is the table's sort key, and every new item writes it: a block of second 42 (a tag,
    # a request) of one race's slice must not land in the index partition of another race's or slice's.
    values = sample_values()
    other_race = entity.sk.build(values | {"raceId": "01JD5Z6Q8X0000000000000001"})
    other = {entity.sk.build(values), other_race}
    if "{slice" in entity.pk.pattern:
        other.add(entity.sk.build(values | {"slice": 6}))
    assert len(other) == (3 if "{slice" in entity.pk.pattern else 2)


def test_a_slice_s_blocks_are_one_sort_key_range_in_second_order():
    block = lambda second, slice_=5: keys.SECOND_BLOCK.sk.build(sample_values() | {"second": second, "slice": slice_})
    within = keys.SECOND_BLOCK.sk.prefix(raceId=sample_values()["raceId"], slice=5)
    assert all(block(second).startswith(within) for second in (0, 42, 9999))
    assert not block(42, slice_=6).startswith(within)
    assert block(9) < block(10) < block(299)
