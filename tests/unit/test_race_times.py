"""A new race's startsAt (``races.starts_at``) and a stored race's end (``finishing.ends_at``)."""

import pytest

from alleycat.clock import epoch, race_start
from alleycat.errors import BadRequest
from alleycat.rules import finishing
from alleycat.storage import races
from alleycat.storage.entities import Race

NOW = epoch("2026-11-22T10:00:00Z")


def message(text, duration=300, now=NOW):
    with pytest.raises(BadRequest) as refused:
        races.starts_at(text, duration, now)
    return refused.value.message


@pytest.mark.parametrize("text, stored", [
    ("2026-11-22T10:00:00Z", "2026-11-22T10:00:00Z"), ("2026-11-22T10:00Z", "2026-11-22T10:00:00Z"),
    ("2026-11-22T10:00:00.999999Z", "2026-11-22T10:00:00Z"), ("2099-12-31T23:59:59Z", "2099-12-31T23:59:59Z"),
])
def test_a_start_is_stored_in_whole_utc_seconds(text, stored):
    assert races.starts_at(text, 300, NOW) == stored


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00Z", "1999-12-31T23:59:59Z", "2100-01-01T00:00:00Z",
                                  "9999-12-31T23:59:59Z"])
def test_a_start_outside_2000_to_2099_is_refused(text):
    assert message(text, now=epoch("2000-01-01T00:00:00Z")) == \
        "startsAt must be a time from 2000 to 2099, e.g. 2026-11-22T10:00:00Z"


def test_a_race_over_before_the_request_is_refused_and_one_ending_at_it_is_not():
    # A 300-second race starting 300 s before the request ends at it: not yet over
    assert races.starts_at("2026-11-22T09:55:00Z", 300, NOW) == "2026-11-22T09:55:00Z"
    # One second earlier it is over
    assert message("2026-11-22T09:54:59Z") == ("the race would already be over: startsAt 2026-11-22T09:54:59Z plus "
                                               "durationSeconds 300 ends at 2026-11-22T09:59:59Z, before now "
                                               "(2026-11-22T10:00:00Z)")
    assert "already be over" in message("2000-01-01T00:00:00Z", 3600)
    # a race that started before the request and ends after it is live, and may be made
    assert races.starts_at("2026-11-22T09:59:00Z", 300, NOW) == "2026-11-22T09:59:00Z"


@pytest.mark.parametrize("text", ["yesterday", "2026-11-22T10:00:00+01:00", "2026-02-30T10:00:00Z", ""])
def test_a_start_that_is_no_utc_time_is_refused(text):
    assert message(text).startswith("startsAt must be an ISO 8601 time in UTC")


def race(starts_at, duration=300):
    return Race("01JD5Z6Q8X0000000000000000", "hill-climb", "Hill climb", starts_at, duration)


def test_a_stored_race_ends_its_duration_after_its_start():
    assert finishing.ends_at(race("2026-11-22T10:00:00Z")) == NOW + 300
    assert finishing.ends_at(race("2099-12-31T23:59:59Z", 3600)) == epoch("2100-01-01T00:59:59Z")


@pytest.mark.parametrize("stored", ["1-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
                                    "1999-12-31T23:59:59Z", "2100-01-01T00:00:00Z", "", "2026-11-22"])
def test_a_stored_race_with_a_start_creation_refuses_has_no_end(stored):
    # the finisher finishes such a race at once (tests/integration/test_race_ending.py)
    assert race_start(stored) is None and finishing.ends_at(race(stored)) is None
