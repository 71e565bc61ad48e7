"""The race-day replay posts only seconds that have happened, and says so if any is refused."""

import json

import pytest

from alleycat.clock import epoch
from alleycat.rules.fairplay import latest_second
from bench import raceday
from local.events import sample_event


def test_every_second_of_the_replayed_race_has_happened_when_the_events_post_it():
    # The replay's telemetry events carry the events/ file's requestContext.timeEpoch: the server's now
    now = sample_event("post_telemetry")["requestContext"]["timeEpoch"] / 1000
    assert latest_second(now, epoch(raceday.STARTS_AT)) >= raceday.DURATION - 1
    # and its race is created before it starts (upcoming, as a race is made)
    assert sample_event("create_race")["requestContext"]["timeEpoch"] / 1000 < epoch(raceday.STARTS_AT)


def answer(accepted, rejected=()):
    return {"body": json.dumps({"accepted": accepted, "duplicates": 0, "rejected": list(rejected)})}


def test_a_second_whose_samples_were_not_all_accepted_stops_the_replay():
    raceday.all_accepted([answer(2), answer(1)], 3, second=7)
    with pytest.raises(AssertionError, match="not yet"):
        raceday.all_accepted([answer(2), answer(0, [{"racerId": "r", "second": 7, "reason": "not yet"}])], 3, second=7)
    with pytest.raises(AssertionError):
        raceday.all_accepted([answer(2)], 3, second=7)  # a sample neither accepted nor refused: counted short
