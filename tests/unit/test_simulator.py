"""The simulator's racers: stable per id, inside the original ranges, trending up each race."""

import hashlib
import io
import itertools
import json
import math
import threading

import pytest

from alleycat.clock import epoch
from simulator import race as race_module
from simulator.client import ApiClient, ApiError
from simulator.profiles import (
    CADENCE_RANGE,
    JITTER,
    MASS_KG,
    POWER_JITTER,
    RESISTANCE_RANGE,
    SPRINT_RAMP,
    WATTS_PER_KG,
    RacerProfile,
)
from simulator.race import Settings, Simulator, chunks, racer_ids

IDS = [f"rider-{n:04d}" for n in range(1, 201)]


def within(bounds, outer):
    return outer[0] <= bounds[0] < bounds[1] <= outer[1]


@pytest.mark.parametrize("racer_id", IDS[:50])
def test_personal_ranges_lie_within_the_original_ranges(racer_id):
    profile = RacerProfile.for_racer(racer_id)
    assert within(profile.cadence, CADENCE_RANGE)
    assert within(profile.resistance, RESISTANCE_RANGE)


def test_profiles_are_stable_per_racer_id_and_differ_between_racers():
    # The same on every machine and in every run (a resent sample must be identical): two racers' profiles
    # as first drawn, whatever was drawn before them
    profiles = [RacerProfile.for_racer(r) for r in IDS]
    # (their size and fitness drawn after the rest, so the names, ranges and straps are those before power)
    assert RacerProfile.for_racer("rider-0042") == RacerProfile("rider-0042", "Dan Rossi", (51, 86), (54, 71), (107, 174),
                                                                93, 3.64)
    assert profiles[0] == RacerProfile("rider-0001", "Lena Jensen", (62, 73), (60, 70), None, 77, 3.85)
    assert [RacerProfile.for_racer(r) for r in reversed(IDS)] == profiles[::-1]
    assert len({p.name for p in profiles}) > 100
    assert len({(p.cadence, p.resistance) for p in profiles}) > 150


def test_samples_stay_inside_the_racers_range_but_for_the_start_a_stop_and_the_sprint():
    for racer_id in IDS[:20]:
        profile = RacerProfile.for_racer(racer_id)
        effort = profile.in_race("race-1", 300)
        stopped = range(effort.stop.at, effort.stop.at + effort.stop.seconds + effort.stop.ramp) if effort.stop else ()
        for second in range(300):
            sample = effort.sample(second)
            if second >= effort.start_ramp and second not in stopped and second < effort.sprint.at:
                assert profile.cadence[0] <= sample["cadence"] <= profile.cadence[1]
            assert profile.resistance[0] <= sample["resistance"] <= profile.resistance[1]
            assert sample["second"] == second and sample["racerId"] == racer_id


def test_racers_start_from_standstill_some_stop_and_start_again_and_all_sprint_at_the_end():
    efforts = [RacerProfile.for_racer(racer_id).in_race("race-1", 300) for racer_id in IDS]
    assert all(effort.sample(0)["cadence"] == 0 for effort in efforts)
    # some reach their trend in one second (a beginner's key, a sensor's first reading), others in up to 4
    assert {effort.start_ramp for effort in efforts} == {1, 2, 3, 4}
    assert all(effort.sample(effort.start_ramp)["cadence"] >= effort.profile.cadence[0] for effort in efforts)
    stopping = [effort for effort in efforts if effort.stop]
    assert 0.2 < len(stopping) / len(efforts) < 0.4
    for effort in stopping:
        stop = effort.stop
        assert 5 <= stop.seconds <= 20
        assert [effort.sample(s)["cadence"] for s in range(stop.at, stop.at + stop.seconds)] == [0] * stop.seconds
        assert effort.sample(stop.at + stop.seconds + stop.ramp - 1)["cadence"] >= effort.profile.cadence[0]
    for effort in efforts:
        assert 270 <= effort.sprint.at <= 290
        last = effort.sample(299)["cadence"]
        assert last - round(effort.trend(299)[0]) >= effort.sprint.rpm - JITTER >= 15 - JITTER
        assert last <= CADENCE_RANGE[1] + 35 + JITTER


def test_about_half_the_racers_send_a_heart_rate_inside_the_contracts_range_rising_with_the_race():
    # Contract v1.2: heartRate is optional, 30-250 bpm
    efforts = [RacerProfile.for_racer(racer_id).in_race("race-1", 300) for racer_id in IDS]
    wearing = [effort for effort in efforts if effort.profile.heart_rate is not None]
    assert 0.3 < len(wearing) / len(IDS) < 0.7
    assert all("heartRate" not in effort.sample(s) for effort in efforts if effort not in wearing for s in (0, 150, 299))
    for effort in wearing:
        rates = [effort.sample(second)["heartRate"] for second in range(300)]
        assert all(isinstance(rate, int) and 30 <= rate <= 250 for rate in rates)
        assert sum(rates[-30:]) > sum(rates[:30])  # the last half-minute's heart beats faster than the first's


def test_every_sample_carries_power_torque_times_cadence_at_a_club_riders_watts():
    # Contract v1.3: power, whole watts 0-3000; the simulator's racers join as bikes (real equipment), so every
    # sample of every racer carries it
    profiles = [RacerProfile.for_racer(racer_id) for racer_id in IDS[:100]]
    assert all(MASS_KG[0] <= p.mass <= MASS_KG[1] and WATTS_PER_KG[0] <= p.watts_per_kg <= WATTS_PER_KG[1] for p in profiles)
    assert len({p.mass for p in profiles}) > 20
    averages, heights = [], []
    for profile in profiles:
        effort = profile.in_race("race-1", 300)
        samples = [effort.sample(second) for second in range(300)]
        assert all(isinstance(s["power"], int) and 0 <= s["power"] <= 3000 for s in samples)
        assert all(s["power"] == 0 for s in samples if s["cadence"] == 0)  # standing still, stopped: no watts
        for second, s in enumerate(samples):
            # torque x angular speed, within the reading's wobble (and its rounding to whole watts)
            expected = effort.torque(second, s["resistance"]) * 2 * math.pi * s["cadence"] / 60
            assert abs(s["power"] - expected) <= expected * POWER_JITTER + 0.5
        # at the top of their ranges a rider rides at their threshold power, mass x watts a kg
        assert effort.watts(0, profile.cadence[1], profile.resistance[1]) == pytest.approx(profile.mass * profile.watts_per_kg)
        averages.append(sum(s["power"] for s in samples) / 300)
        heights.append(max(s["power"] for s in samples[effort.sprint.at:]))
        # the sprint pushes harder than the minute before it
        assert min(s["power"] for s in samples[effort.sprint.at + SPRINT_RAMP:]) > max(
            s["power"] for s in samples[effort.sprint.at - 60:effort.sprint.at])
    # a club rider's watts: 150-350 W over a race for most, sprints to 600-1,100 W for most, none beyond 1,500
    averages.sort()
    heights.sort()
    assert 140 < averages[10] < averages[90] < 350 and averages[-1] < 400
    assert 500 < heights[10] < 650 < heights[50] < heights[90] < 1100 and heights[-1] < 1500


def test_values_trend_from_the_race_minimum_to_its_maximum():
    effort = RacerProfile.for_racer("rider-0007").in_race("race-1", 300)
    trend = [effort.trend(second) for second in range(300)]
    assert trend[0] == (effort.cadence[0], effort.resistance[0])
    assert trend[-1] == (effort.cadence[1], effort.resistance[1])
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in itertools.pairwise(trend))
    first, last = effort.sample(0), effort.sample(299)
    assert last["cadence"] + last["resistance"] > first["cadence"] + first["resistance"]


def test_each_race_draws_new_bounds_but_a_resent_sample_is_identical():
    profile = RacerProfile.for_racer("rider-0042")
    races = [profile.in_race(f"race-{n}", 300) for n in range(10)]
    assert len({(r.cadence, r.resistance) for r in races}) > 1
    assert races[0].sample(17) == profile.in_race("race-0", 300).sample(17)


def test_telemetry_is_chunked_to_at_most_1000_samples():
    assert [len(chunk) for chunk in chunks(list(range(2500)))] == [1000, 1000, 500]


def test_racer_ids_are_numbered_under_the_prefix():
    assert racer_ids(Settings(racers=3, racer_prefix="t")) == ["t-0001", "t-0002", "t-0003"]


def test_cognito_shaped_racer_ids_are_36_characters_distinct_per_prefix_and_the_same_every_run():
    ids = racer_ids(Settings(racers=100, racer_prefix="t", cognito_ids=True))
    assert all(len(i) == 36 and i.count("-") == 4 for i in ids) and len(set(ids)) == 100
    assert ids[:2] == [name_based_uuid("t-0001"), name_based_uuid("t-0002")]
    assert not set(ids) & set(racer_ids(Settings(racers=100, racer_prefix="u", cognito_ids=True)))


def name_based_uuid(name: str) -> str:
    """RFC 4122's name-based UUID (version 5, SHA-1) of ``name`` in the URL namespace, by its section 4.3."""
    url_namespace = bytes.fromhex("6ba7b8119dad11d180b400c04fd430c8")
    digest = bytearray(hashlib.sha1(url_namespace + name.encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # the RFC 4122 variant
    hex_digits = digest.hex()
    return "-".join((hex_digits[:8], hex_digits[8:12], hex_digits[12:16], hex_digits[16:20], hex_digits[20:]))


class FlakyClient(ApiClient):
    """Fails with the given errors, then answers."""

    def __init__(self, errors, answer):
        self.slept = []
        super().__init__("http://unused", sleep=self.slept.append)
        self.errors, self.answer = list(errors), answer

    def _once(self, method, path, body, headers):
        if self.errors:
            raise self.errors.pop(0)
        return self.answer


def test_client_retries_5xx_and_connection_errors_with_growing_backoff():
    client = FlakyClient([ApiError(503, "busy"), ConnectionResetError(), ApiError(502, "bad")], {"ok": 1})
    assert client.call("POST", "/x") == {"ok": 1}
    assert client.retried == 3 and client.slept == sorted(client.slept) and client.slept[0] < client.slept[-1]


def test_client_does_not_retry_a_4xx():
    client = FlakyClient([ApiError(409, "finished")], {"ok": 1})
    with pytest.raises(ApiError):
        client.call("POST", "/x")
    assert client.retried == 0


class RecordingClient(ApiClient):
    def __init__(self):
        super().__init__("http://unused")
        self.calls = []

    def _once(self, method, path, body, headers):
        self.calls.append((method, path, body, headers))
        if path.endswith("/races"):
            return {"raceId": "R1"}
        if path.endswith("/telemetry"):
            return {"accepted": len(body["samples"]), "duplicates": 0, "rejected": []}
        return {}


@pytest.fixture
def whole_second(monkeypatch):
    """The wall clock on a whole second, still: a race set to start now starts at once."""
    monkeypatch.setattr(race_module.time, "time", lambda: 1_795_629_600.0)


def test_a_race_sets_up_joins_sends_one_post_per_tick_and_finishes(whole_second):
    client = RecordingClient()
    settings = Settings(racers=3, speed=1000, races=1, duration=60, class_id="c", start_lead=0)
    simulator = Simulator(client, settings, progress=_quiet())
    totals = simulator.run()
    paths = [(method, path) for method, path, _, _ in client.calls]
    assert ("PUT", "/classes/c") in paths and ("PUT", "/racers/rider-0002") in paths
    create = next(call for call in client.calls if call[1] == "/classes/c/races")
    # (at 1,000 race-seconds a second, the 60 s race started 59.94 s before its first tick: a minute, in whole seconds)
    assert create[2] == {"startsAt": "2026-11-25T17:59:00Z", "durationSeconds": 60} and create[3]["Idempotency-Key"]
    assert sum(path == "/races/R1/telemetry" for _, path in paths) == 60
    joins = [body for _, path, body, _ in client.calls if path.startswith("/races/R1/racers/")]
    assert len(joins) == 3 and all(body == {"equipment": "bike"} for body in joins)  # bikes, said so
    assert paths[-1] == ("POST", "/races/R1/finish")
    assert (totals.sent, totals.accepted, totals.races_finished) == (180, 180, 1)


class FinishingClient(RecordingClient):
    """A race that finishes by itself after 10 ticks: its telemetry is then 409."""

    def _once(self, method, path, body, headers):
        if path.endswith("/telemetry") and sum(p.endswith("/telemetry") for _, p, _, _ in self.calls) >= 10:
            self.calls.append((method, path, body, headers))
            raise ApiError(409, {"message": "race R1 is finished"})
        return super()._once(method, path, body, headers)


def test_a_race_that_finished_by_itself_ends_the_ride_not_the_simulator(whole_second):
    # Given a race the service finished while ticks were still being sent (they ran late)
    client = FinishingClient()
    settings = Settings(racers=3, speed=1000, races=2, duration=60, class_id="c", start_lead=0)
    # When the simulator rides two races
    totals = Simulator(client, settings, progress=_quiet()).run()
    # Then each race stopped at its first refused tick, was finished, and the next race was ridden
    assert totals.races_finished == 2
    assert sum(path == "/races/R1/finish" for _, path, _, _ in client.calls) == 2
    assert totals.sent == 3 * 10


def _quiet():
    from simulator.progress import ProgressBar
    return ProgressBar(stream=io.StringIO(), enabled=False)


class BikeClient(ApiClient):
    """Records every call with the token it carried; the local stack's /local/token signs any racer."""

    calls: list = []

    def __init__(self, base_url="http://unused", token=None, **options):
        super().__init__(base_url, token, **options)

    def _once(self, method, path, body, headers):
        BikeClient.calls.append((self.token, method, path, body))
        if path == "/local/token":
            return {"token": f"token-of-{body['sub']}"}
        if path.endswith("/races"):
            return {"raceId": "R1"}
        if path.endswith("/telemetry"):
            return {"accepted": len(body["samples"]), "duplicates": 0, "rejected": []}
        return {}

    def as_racer(self, racer_id):
        return BikeClient(self.base_url, self.local_token(racer_id))


def test_bike_mode_posts_each_racers_own_sample_with_their_own_token(whole_second):
    # Given the simulator in bike mode with 3 racers
    BikeClient.calls = []
    settings = Settings(racers=3, speed=1000, races=1, duration=60, class_id="c", bikes=True, start_lead=0)
    totals = Simulator(BikeClient(token="admin"), settings, progress=_quiet()).run()
    # Then every telemetry post carries one sample, of the racer whose token it holds, every second
    posts = [(token, body["samples"]) for token, method, path, body in BikeClient.calls if path.endswith("/telemetry")]
    assert len(posts) == 3 * 60
    assert all(len(samples) == 1 and token == f"token-of-{samples[0]['racerId']}" for token, samples in posts)
    assert {(s[0]["racerId"], s[0]["second"]) for _, s in posts} == {(r, t) for r in racer_ids(settings) for t in range(60)}
    assert (totals.sent, totals.accepted) == (180, 180)


class BoardClient(ApiClient):
    def __init__(self, rows):
        super().__init__("http://unused")
        self.rows = rows

    def _once(self, method, path, body, headers):
        return {"items": self.rows}


def test_the_watch_times_each_accepted_sample_until_the_board_shows_it(monkeypatch):
    from simulator import race as race_module
    from simulator.race import LeaderboardWatch, Totals

    totals = Totals()
    clock = iter([10.0, 10.0, 11.5, 12.0, 13.0])
    monkeypatch.setattr(race_module.time, "monotonic", lambda: next(clock))
    board = BoardClient([{"racerId": "a", "lastSecond": None}])
    watch = LeaderboardWatch(board, "R1", totals, stop=None)
    # Given seconds 0 and 1 of racer a accepted at t=10
    watch.accepted([{"racerId": "a", "second": 0}, {"racerId": "a", "second": 1}],
                   {"accepted": 2, "duplicates": 0, "rejected": []})
    # When the board shows nothing at t=10, then second 0 at t=11.5 and second 1 at t=12
    watch._poll()
    board.rows = [{"racerId": "a", "lastSecond": 0}]
    watch._poll()
    board.rows = [{"racerId": "a", "lastSecond": 1}]
    watch._poll()
    # Then their lags are 1.5 s and 2 s, and the summary reports them
    assert totals.lags == [1.5, 2.0]
    assert "p95 2.00 s" in totals.summary()


def test_a_board_shows_every_second_up_to_the_racers_last_once():
    from collections import defaultdict

    from simulator.audience import Board

    shown = defaultdict(list)
    board = Board(shown)
    board.show("a", 2, 10.0)
    board.show("a", 1, 11.0)   # an older message: nothing new
    board.show("a", 4, 12.0)
    board.show("b", None, 12.0)
    assert dict(shown) == {("a", 0): [10.0], ("a", 1): [10.0], ("a", 2): [10.0], ("a", 3): [12.0], ("a", 4): [12.0]}


def test_freshness_counts_each_viewer_and_never_goes_below_zero():
    from simulator.audience import _lags, percentiles

    shown = {("a", 0): [10.5, 11.0], ("a", 1): [9.0]}  # two viewers saw second 0; one saw second 1 early
    accepted = {("a", 0): 10.0, ("a", 1): 9.5, ("a", 2): 9.9}
    lags, missing = _lags(shown, accepted, viewers=2)
    assert sorted(lags) == [0.0, 0.5, 1.0]
    assert missing == 1 + 2  # second 1 missed by one viewer, second 2 by both
    assert percentiles([1.0, 2.0, 3.0, 4.0])["p50"] == 3.0


class VirtualTime:
    """The simulator's ``time`` module on a clock that moves only when the simulator waits."""

    def __init__(self, now: float):
        self.now = now

    def time(self) -> float:
        return self.now

    monotonic = time


class VirtualStop(threading.Event):
    """A stop never set, whose waits move the virtual clock on by the time waited."""

    def __init__(self, clock: VirtualTime):
        super().__init__()
        self.clock = clock

    def wait(self, timeout=None) -> bool:
        self.clock.now += timeout
        return False


class TimedClient(RecordingClient):
    """Records when (on the virtual clock) each call was made."""

    def __init__(self, clock: VirtualTime):
        super().__init__()
        self.clock, self.at = clock, []

    def _once(self, method, path, body, headers):
        self.at.append(self.clock.now)
        return super()._once(method, path, body, headers)


@pytest.mark.parametrize("speed, duration", [(1, 60), (1, 300), (2, 60), (5, 300), (7, 61), (60, 3600), (0.5, 60)])
def test_every_second_posted_has_happened_and_the_race_is_not_over_while_it_is_ridden(monkeypatch, speed, duration):
    # Given the simulator on a clock at 0.4 s past a whole second
    clock = VirtualTime(1_795_629_600.4)
    monkeypatch.setattr(race_module, "time", clock)
    client = TimedClient(clock)
    settings = Settings(racers=3, speed=speed, races=1, duration=duration, class_id="c")
    # When it rides a race
    Simulator(client, settings, progress=_quiet(), stop=VirtualStop(clock)).run()
    # Then it posted every second of the race, each at or after the moment it happened by the race's start
    # (the server's rule without its 2 s of tolerance: second <= now - startsAt)
    created = next(at for at, (_, path, _, _) in zip(client.at, client.calls, strict=True) if path == "/classes/c/races")
    starts = race_module.datetime.strptime(next(body for _, path, body, _ in client.calls if path == "/classes/c/races")
                                           ["startsAt"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=race_module.UTC).timestamp()
    posts = [(at, body["samples"]) for at, (_, path, body, _) in zip(client.at, client.calls, strict=True) if path.endswith("/telemetry")]
    assert [samples[0]["second"] for _, samples in posts] == list(range(duration))
    assert all(at >= starts + samples[0]["second"] for at, samples in posts)
    # while the race was not over (a race ridden slower than real time ends by itself: the service's finish)
    if speed >= 1:
        assert all(at < starts + duration for at, _ in posts)
    # and it was created before it was over, its first tick the time to join after its creation
    assert created < starts + duration and posts[0][0] - created == pytest.approx(race_module.join_lead_seconds(3), abs=1)
    # and it rode at its speed: the whole race in duration / speed seconds
    assert posts[-1][0] - posts[0][0] == pytest.approx((duration - 1) / speed)


class AnnouncingClient(TimedClient):
    """Each race made gets an id of its own (R1, R2, ...) and is answered as the API does, its startsAt too."""

    def _once(self, method, path, body, headers):
        answer = super()._once(method, path, body, headers)
        if path.endswith("/races"):
            return {**body, "raceId": f"R{sum(p.endswith('/races') for _, p, _, _ in self.calls)}", "status": "open"}
        return answer


def test_each_race_is_up_next_ahead_of_its_start_and_the_next_starts_as_it_ends(monkeypatch):
    # Given the simulator at speed 1 announcing each race 120 s ahead (make demo), 10 racers, two 300 s races
    clock = VirtualTime(1_795_629_600.4)
    monkeypatch.setattr(race_module, "time", clock)
    client = AnnouncingClient(clock)
    settings = Settings(racers=10, speed=1, races=2, duration=300, class_id="c", announce=120)
    # When it rides them
    Simulator(client, settings, progress=_quiet(), stop=VirtualStop(clock)).run()
    calls = [(at, path, body) for at, (_, path, body, _) in zip(client.at, client.calls, strict=True)]
    made = [(at, epoch(body["startsAt"])) for at, path, body in calls if path == "/classes/c/races"]
    first_ticks = {race: next(at for at, path, body in calls if path == f"/races/{race}/telemetry") for race in ("R1", "R2")}
    finished_at = next(at for at, path, _ in calls if path == "/races/R1/finish")
    # Then the first race was made 120 s (whole seconds) before its start, and rode from its start
    assert len(made) == 2 and 120 <= made[0][1] - made[0][0] < 121
    assert made[0][1] <= first_ticks["R1"] < made[0][1] + 1
    # and the second was made while the first was ridden, 120 s before its start, which is the first's end
    assert made[1][1] == made[0][1] + 300
    assert made[1][1] - 121 < made[1][0] <= made[1][1] - 120 and made[1][0] < finished_at
    # with its 10 racers joined before its start, 8 at most between two ticks of the first race
    joins = [at for at, path, _ in calls if path.startswith("/races/R2/racers/")]
    assert len(joins) == 10 and max(joins) < made[1][1]
    ticks = [at for at, path, _ in calls if path == "/races/R1/telemetry"]
    assert max(sum(a <= at < b for at in joins) for a, b in itertools.pairwise(ticks)) <= 8
    # and it rode from its start: its second 0 had happened
    assert made[1][1] <= first_ticks["R2"] < made[1][1] + 1


INGEST = {"url": "ws://127.0.0.1:1883/mqtt", "username": "alleycat", "topic": "races/{raceId}/racers/{racerId}/telemetry"}


def test_an_mqtt_message_is_the_racers_own_topic_and_the_telemetry_body_without_the_racer():
    from simulator.mqtt import message

    samples = [{"racerId": "rider-0001", "second": s, "cadence": 80, "resistance": 50.5, "heartRate": 120} for s in (3, 4)]
    to, payload = message(INGEST, "R1", samples)
    assert to == "races/R1/racers/rider-0001/telemetry"
    assert json.loads(payload) == {"samples": [{"second": s, "cadence": 80, "resistance": 50.5, "heartRate": 120} for s in (3, 4)]}
    # and the contract's bounds: 1-60 samples, one racer's
    for wrong in ([], [{**samples[0], "second": s} for s in range(61)], [samples[0], {**samples[1], "racerId": "rider-0002"}]):
        with pytest.raises(ValueError):
            message(INGEST, "R1", wrong)


class ConfigClient(BikeClient):
    """A stack whose /config.json names a broker."""

    def _once(self, method, path, body, headers):
        if path == "/config.json":
            BikeClient.calls.append((self.token, method, path, body))
            return {"ingest": INGEST}
        return super()._once(method, path, body, headers)


class FakeBike:
    """A racer's MQTT connection that acknowledges every message but those of ``lost`` seconds."""

    bikes: list = []
    lost: set = set()

    def __init__(self, ingest, token):
        self.ingest, self.token, self.published, self.closed = ingest, token, [], False
        FakeBike.bikes.append(self)

    def publish(self, race_id, samples):
        from simulator.mqtt import message

        self.published.append(message(self.ingest, race_id, samples))
        return samples[0]["second"] not in FakeBike.lost

    @staticmethod
    def confirmed(info, timeout):
        return info

    def close(self):
        self.closed = True


def test_with_a_broker_in_config_json_each_racer_publishes_its_own_second_and_an_unacknowledged_one_goes_over_http_too(
        whole_second, monkeypatch):
    # Given a stack whose /config.json names a broker, and a broker that acknowledges no message of second 7
    monkeypatch.setattr(race_module, "MqttBike", FakeBike)
    BikeClient.calls, FakeBike.bikes, FakeBike.lost = [], [], {7}
    settings = Settings(racers=3, speed=1000, races=1, duration=60, class_id="c", start_lead=0)
    totals = Simulator(ConfigClient(token="admin"), settings, progress=_quiet()).run()
    # Then each racer connected with its own token and published each second to its own topic, once
    assert sorted(bike.token for bike in FakeBike.bikes) == [f"token-of-{r}" for r in racer_ids(settings)]
    for bike in FakeBike.bikes:
        racer = bike.token.removeprefix("token-of-")
        assert {to for to, _ in bike.published} == {f"races/R1/racers/{racer}/telemetry"}
        assert [json.loads(payload)["samples"][0]["second"] for _, payload in bike.published] == list(range(60))
        assert bike.closed
    # and only the seconds not acknowledged went over HTTP as well, each with its racer's token
    posts = [(token, body["samples"]) for token, _, path, body in BikeClient.calls if path.endswith("/telemetry")]
    assert sorted((token, s[0]["racerId"], s[0]["second"]) for token, s in posts) == [
        (f"token-of-{r}", r, 7) for r in racer_ids(settings)]
    assert (totals.sent, totals.published, totals.accepted) == (180, 177, 3)


def test_http_alone_when_asked_whatever_config_json_says(whole_second, monkeypatch):
    monkeypatch.setattr(race_module, "MqttBike", FakeBike)
    BikeClient.calls, FakeBike.bikes = [], []
    settings = Settings(racers=2, speed=1000, races=1, duration=60, class_id="c", start_lead=0, transport="http")
    totals = Simulator(ConfigClient(token="admin"), settings, progress=_quiet()).run()
    assert FakeBike.bikes == [] and (totals.sent, totals.accepted, totals.published) == (120, 120, 0)
    assert not any(path == "/config.json" for *_, path, _ in BikeClient.calls)
