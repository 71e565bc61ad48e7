"""The race-day loop: set up a class and racers, then race after race over the API."""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone

from .client import ApiClient
from .profiles import RacerProfile
from .progress import ProgressBar

MAX_SAMPLES_PER_REQUEST = 1000
SETUP_WORKERS = 8


@dataclass
class Settings:
    racers: int = 100
    speed: float = 1.0
    races: int | None = None  # None: until stopped
    duration: int = 300
    class_id: str = "demo-class"
    class_name: str = "Demo class"
    racer_prefix: str = "rider"


@dataclass
class Totals:
    sent: int = 0
    accepted: int = 0
    duplicates: int = 0
    rejected: int = 0
    late_ticks: int = 0
    races_finished: int = 0
    started: float = field(default_factory=time.monotonic)

    def add(self, sent: int, response: dict) -> None:
        self.sent += sent
        self.accepted += response["accepted"]
        self.duplicates += response["duplicates"]
        self.rejected += len(response["rejected"])

    def summary(self) -> str:
        return (f"races finished {self.races_finished}, samples sent {self.sent}, "
                f"accepted {self.accepted}, duplicates {self.duplicates}, rejected {self.rejected}, "
                f"late ticks {self.late_ticks}, elapsed {time.monotonic() - self.started:.1f} s")


def chunks(items: list, size: int = MAX_SAMPLES_PER_REQUEST):
    for start in range(0, len(items), size):
        yield items[start:start + size]


def racer_ids(settings: Settings) -> list[str]:
    return [f"{settings.racer_prefix}-{number:04d}" for number in range(1, settings.racers + 1)]


class Simulator:
    """Drives ``settings.races`` races (or until ``stop`` is set) through ``client``."""

    def __init__(self, client: ApiClient, settings: Settings, *, progress: ProgressBar | None = None,
                 stop: threading.Event | None = None):
        self.client, self.settings = client, settings
        self.progress = progress or ProgressBar()
        self.stop = stop or threading.Event()
        self.totals = Totals()
        self.profiles = [RacerProfile.for_racer(racer_id) for racer_id in racer_ids(settings)]
        self.current_race: str | None = None

    def run(self) -> Totals:
        self.set_up()
        number = 0
        while not self.stop.is_set() and (self.settings.races is None or number < self.settings.races):
            number += 1
            self.race(number)
        return self.totals

    def set_up(self) -> None:
        self.client.call("PUT", f"/classes/{self.settings.class_id}",
                         {"name": self.settings.class_name,
                          "description": "Simulated racers, one race after another"})
        self._each_racer(lambda p: self.client.call("PUT", f"/racers/{p.racer_id}", {"name": p.name}))

    def race(self, number: int) -> None:
        settings = self.settings
        started_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        race = self.client.call("POST", f"/classes/{settings.class_id}/races",
                                {"startsAt": started_at, "durationSeconds": settings.duration},
                                headers={"Idempotency-Key": str(uuid.uuid4())})
        race_id = self.current_race = race["raceId"]
        self._each_racer(lambda p: self.client.call("PUT", f"/races/{race_id}/racers/{p.racer_id}"))
        if self.stop.is_set():
            return
        efforts = [profile.in_race(race_id, settings.duration) for profile in self.profiles]
        label = f"race {number}" + (f"/{settings.races}" if settings.races else "")
        interval = 1 / settings.speed
        clock = time.monotonic()
        for second in range(settings.duration):
            if self.stop.is_set():
                return
            self._send([effort.sample(second) for effort in efforts], race_id)
            self.progress.show(label, second + 1, settings.duration, self.totals)
            clock += interval
            delay = clock - time.monotonic()
            if delay < 0:
                self.totals.late_ticks += 1
                clock = time.monotonic()  # catch up by riding on, not by bursting
            elif self.stop.wait(delay):
                return
        self.client.call("POST", f"/races/{race_id}/finish")
        self.totals.races_finished += 1
        self.progress.done(label, self.totals)

    def _send(self, samples: list[dict], race_id: str) -> None:
        for batch in chunks(samples):
            response = self.client.call("POST", f"/races/{race_id}/telemetry", {"samples": batch})
            self.totals.add(len(batch), response)

    def _each_racer(self, call) -> None:
        def unless_stopped(profile: RacerProfile) -> None:
            if not self.stop.is_set():
                call(profile)

        with ThreadPoolExecutor(max_workers=SETUP_WORKERS) as pool:
            list(pool.map(unless_stopped, self.profiles))
