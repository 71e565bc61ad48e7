"""The FIT file of a ride (frontend/src/fitExport.js, the module the racer's page loads on "Download .fit"),
built in Node from history rows (contract v1.3: ``[second, cadence, resistance, output, heartRate, power]``)
and read back by Garmin's own Python decoder (garmin-fit-sdk): a trainer's ride with watts, gaps and a
heart-rate strap; the on-screen bike's ride (no watts); a ride without a second (no file). One Node process
builds every file.

What the tests expect they compute here from the rows: the speed from the physical model of docs/export.md
(solved by bisection, not by the module's closed form), normalized power by its definition, the timer's
stints from the missing seconds."""

import json
import math
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest
from garmin_fit_sdk import Decoder, Stream

from .nodejs import FRONTEND, ROOT, imported, package, printed, run

STARTS_AT = "2026-11-27T18:00:00Z"
START = datetime(2026, 11, 27, 18, tzinfo=UTC)

# docs/export.md: a 75 kg rider on an 8 kg bike, CdA 0.30 m², Crr 0.004, air 1.225 kg/m³, flat, no wind.
MASS, CDA, CRR, AIR, GRAVITY = 83, 0.30, 0.004, 1.225, 9.80665


def watts_at(second: int) -> int | None:
    """The trainer's watts: 180-260 W, a 30-s sprint at 520 W, a coasting second at 0 W, one second without."""
    if second == 100:
        return None  # the trainer sent no power that second
    if second == 75:
        return 0
    return 520 if 60 <= second < 90 else 180 + (second * 37) % 81


MISSING = {*range(40, 52), 120}  # a 12-s gap, then a single second missing: each stops the timer
POWER_RIDE = [[s, 80 + s % 9, 40, 0.0, None if s % 11 == 0 else 120 + s // 3, watts_at(s)]
              for s in range(3, 150) if s not in MISSING]
VIRTUAL_RIDE = [[s, 60, 50, 0.0, None, None] for s in range(60)]


@pytest.fixture(scope="module")
def fit(tmp_path_factory):
    """{ride: the path of its FIT file, or None where the module made none}, every ride built in one Node process."""
    folder = package(tmp_path_factory.mktemp("fit_export_js"), [FRONTEND / "fitExport.js"])
    (folder / "node_modules").symlink_to(ROOT / "node_modules")  # fitExport.js imports @garmin/fitsdk by name
    rides = {"power": ("trainer", POWER_RIDE), "virtual": ("virtual", VIRTUAL_RIDE), "empty": ("trainer", [])}
    return run(imported(folder, fit="fitExport.js"), 'const { writeFileSync } = await import("node:fs");',
               printed(f"""
      const made = {{}};
      for (const [name, [equipment, samples]] of Object.entries({json.dumps(rides)})) {{
        const bytes = fit.rideFit({{ startsAt: {json.dumps(STARTS_AT)}, equipment, samples }});
        made[name] = bytes && {json.dumps(str(folder))} + `/${{name}}.fit`;
        if (bytes) writeFileSync(made[name], bytes);
      }}
      return made;"""))


def decoded(path):
    """Garmin's decoder's messages of ``path``: an intact FIT file, read without an error."""
    decoder = Decoder(Stream.from_file(path))
    assert decoder.is_fit() and decoder.check_integrity()
    messages, errors = Decoder(Stream.from_file(path)).read()
    assert errors == []
    return messages


def rounded(value: float) -> int:
    """To the nearest integer, halves up (JavaScript's Math.round)."""
    return math.floor(value + 0.5)


def speed(watts: float) -> float:
    """m/s on the flat without wind where ``watts`` = v (Crr m g + ½ ρ CdA v²): bisection."""
    low, high = 0.0, 50.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if middle * (CRR * MASS * GRAVITY + 0.5 * AIR * CDA * middle**2) < watts else (low, middle)
    return low


def normalized_power(watts: list[int]) -> int:
    rolling = [sum(watts[i - 30:i]) / 30 for i in range(30, len(watts) + 1)]
    return rounded((sum(w**4 for w in rolling) / len(rolling)) ** 0.25)


def stints(seconds: list[int]) -> list[tuple[int, int]]:
    """(first, last) of each run of consecutive seconds."""
    runs = []
    for second in seconds:
        if runs and second == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], second)
        else:
            runs.append((second, second))
    return runs


def test_the_model_is_within_1_kmh_of_zwifts_flat_speed_from_100_to_400_w():
    # J. Annan's regression of Zwift's flat speed (v in km/h, weight w kg, height h cm), a 75 kg, 175 cm rider
    def zwift(watts, w=75, h=175):
        low, high = 0.0, 100.0
        for _ in range(60):
            v = (low + high) / 2
            low, high = (v, high) if 1.86e-2 * w * v + (-5.37e-4 + 2.23e-5 * w + 1.33e-5 * h) * v**3 < watts else (low, v)
        return low
    assert all(abs(speed(watts) * 3.6 - zwift(watts)) < 1 for watts in range(100, 401, 10))
    assert rounded(speed(250) * 3.6) == 38  # km/h, as docs/export.md says


def test_each_record_carries_the_seconds_watts_and_the_models_speed_and_distance(fit):
    records = decoded(fit["power"])["record_mesgs"]
    assert [r["timestamp"] for r in records] == [START + timedelta(seconds=s) for s, *_ in POWER_RIDE]
    assert [r.get("power") for r in records] == [power for *_, power in POWER_RIDE]
    assert [r.get("heart_rate") for r in records] == [bpm for *_, bpm, _ in POWER_RIDE]
    assert [r["cadence"] for r in records] == [cadence for _, cadence, *_ in POWER_RIDE]
    distance = 0.0
    for record, (second, *_, power) in zip(records, POWER_RIDE, strict=True):
        if power is None:  # no watts that second: no speed, no distance
            assert "speed" not in record and "distance" not in record, second
            continue
        distance += speed(power)
        assert record["speed"] == pytest.approx(speed(power), abs=0.0006), second  # FIT's mm/s
        assert record["distance"] == pytest.approx(distance, abs=0.006), second  # FIT's cm
    moving = [r["distance"] for r in records if r.get("power")]
    assert all(a < b for a, b in pairwise(moving))  # each second with watts goes further
    coasting = next(r for r in records if r.get("power") == 0)
    assert coasting["speed"] == 0 and coasting["distance"] > 0


def test_the_session_and_its_lap_sum_the_watts_and_the_timer_counts_only_the_seconds_ridden(fit):
    messages = decoded(fit["power"])
    watts = [power for *_, power in POWER_RIDE if power is not None]
    speeds = [speed(w) for w in watts]
    first, last = POWER_RIDE[0][0], POWER_RIDE[-1][0]
    assert len(messages["lap_mesgs"]) == len(messages["session_mesgs"]) == 1
    for summary in messages["lap_mesgs"][0], messages["session_mesgs"][0]:
        assert (summary["sport"], summary["sub_sport"]) == ("cycling", "indoor_cycling")
        assert summary["avg_power"] == rounded(sum(watts) / len(watts))
        assert summary["max_power"] == 520
        assert summary["normalized_power"] == normalized_power(watts) > summary["avg_power"]
        assert summary["total_work"] == sum(watts)  # J
        assert summary["total_distance"] == pytest.approx(sum(speeds), abs=0.006)
        assert summary["max_speed"] == pytest.approx(max(speeds), abs=0.0006)
        assert summary["avg_speed"] == pytest.approx(sum(speeds) / len(speeds), abs=0.0006)
        assert summary["start_time"] == START + timedelta(seconds=first)
        assert summary["total_elapsed_time"] == last - first + 1
        assert summary["total_timer_time"] == len(POWER_RIDE) == last - first + 1 - len(MISSING)
    assert messages["activity_mesgs"][0]["total_timer_time"] == len(POWER_RIDE)


def test_the_timer_stops_across_each_gap_and_starts_again(fit):
    events = [(e["timestamp"], e["event_type"]) for e in decoded(fit["power"])["event_mesgs"] if e["event"] == "timer"]
    at = lambda second: START + timedelta(seconds=second)
    runs = stints([s for s, *_ in POWER_RIDE])
    assert len(runs) == 3
    assert events == [event for first, last in runs for event in ((at(first), "start"), (at(last + 1), "stop_all"))]
    # the timer's running time, start to stop, is the seconds ridden
    assert sum((stop - start).total_seconds() for (start, _), (stop, _) in zip(events[::2], events[1::2], strict=True)) \
        == len(POWER_RIDE)


def test_a_ride_without_watts_has_no_power_speed_or_distance(fit):
    messages = decoded(fit["virtual"])
    assert len(messages["record_mesgs"]) == len(VIRTUAL_RIDE)
    fields = {name for record in messages["record_mesgs"] for name in record}
    assert fields == {"timestamp", "cadence", "resistance"}
    session = messages["session_mesgs"][0]
    assert session["sub_sport"] == "virtual_activity"
    assert not {"avg_power", "max_power", "normalized_power", "total_work", "total_distance", "avg_speed",
                "max_speed"} & set(session)
    assert session["total_timer_time"] == session["total_elapsed_time"] == len(VIRTUAL_RIDE)


def test_a_ride_without_a_second_makes_no_file(fit):
    assert fit["empty"] is None
