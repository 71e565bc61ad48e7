"""The race-day loop: set up a class and racers, then race after race over the API.

Every second the simulator posts has happened by the server's clock when it is posted (contract
v1.2: a later second is rejected ``not yet``), at any ``--speed``:

- At speed 1 the race starts at the first tick, and tick k posts second k at ``startsAt + k`` or
  later (a late tick later still: it rides on, it never bursts to catch up).
- At speed X > 1 race-seconds are posted X times faster than they pass, so the race is created with
  a head start: it started ``durationSeconds × (1 − 1/X)`` before the first tick (``head_start``).
  Tick k then posts at ``first + k/X = startsAt + D(1 − 1/X) + k/X``, at or after ``startsAt + k``
  for every k < D, while the race ends ``1/X`` s after the last tick: it is never over while ridden,
  and the simulator finishes it at its last tick as before. Why this design: the seconds posted must
  have happened (no weakening of the rule, not even its 2 s of tolerance for clocks), and the race
  must be open for the whole ride; a race started that much earlier is the only race that is both.
  What a viewer sees: the race's clock (its start, the time left) is the server's, so at speed 5 a
  300 s race shows 240 s gone as its board starts to fill, and both end together.
- At speed X < 1 there is no head start: seconds are posted later than they happen, and past the
  race's end the race finishes by itself (its 409 ends the ride, ``_finished``).
"""

from __future__ import annotations

import math
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from .client import ApiClient, ApiError
from .mqtt import MqttBike
from .profiles import RacerProfile
from .progress import ProgressBar

if TYPE_CHECKING:
    from .audience import Audience

BIKE = "bike"  # the equipment the simulated racers join on: bikes posting over the API (contract v1.2)
MAX_SAMPLES_PER_REQUEST = 1000
SETUP_WORKERS = 8
BIKE_WORKERS = 128  # bikes post at once, as real ones do; more than this queue for a thread
# A message that could not be sent (no connection) goes over HTTP at once; one in flight is given this long for its
# PUBACK (a busy broker is waited for, not doubled), then goes over HTTP as well (harmless: the first value wins).
PUBACK_SECONDS = 30.0
WATCH_SECONDS = 0.25
CLOCK_CHECK_SECONDS = 0.25  # how often a wait for a moment reads the clock again (a clock a test moves may jump)


def join_lead_seconds(racers: int) -> int:
    """How far ahead of a race's creation its first tick is: time for its racers to join (~100 a second here)."""
    return 2 + racers // 100


def head_start(duration: int, speed: float) -> float:
    """How long before its first tick a race ridden at ``speed`` starts, so that tick k, at ``k / speed`` s
    after the first, posts a second that has happened (second k at ``startsAt + k`` or later) and the
    race is not over until ``1 / speed`` s after its last tick: ``duration × (1 − 1/speed)``, 0 at
    speed 1 or less."""
    return duration * (1 - 1 / speed) if speed > 1 else 0.0


@dataclass
class Settings:
    racers: int = 100
    speed: float = 1.0
    races: int | None = None  # None: until stopped
    duration: int = 300
    class_id: str = "demo-class"
    class_name: str = "Demo class"
    metric: str = "output"  # the class's (contract v1.3): "power" ranks the racers' watts
    racer_prefix: str = "rider"
    cognito_ids: bool = False  # racer ids shaped as Cognito subs (36 characters, random-looking), not <prefix>-0001
    bikes: bool = False  # every racer posts its own sample each second with its own token
    # "auto": each racer publishes its own sample over MQTT with its own token when GET /config.json names a broker
    # (``ingest``; contract v1.3), else over HTTP; "http": over HTTP whatever config.json says; "mqtt": a broker or nothing.
    transport: str = "auto"
    watch: bool = False  # poll the race leaderboard and measure how far it lags accepted telemetry
    push_viewers: int = 0  # viewers subscribed to the race's board over the Event API (simulator.audience)
    pollers: int = 0  # viewers polling the race leaderboard every second, as the page did before push
    probe: float = 0.0  # seconds between reads of a probe of the board (simulator.audience: where freshness goes)
    probe_table: str | None = None  # "<DynamoDB endpoint> <table>": the probe reads the board there, not over the API
    start_lead: int | None = None  # seconds between creating a race and its first tick (default: time to join)
    # At speed 1: seconds each race is up next (upcoming, its racers joined) before its start, so people can join
    # it; the first is created that long ahead, each next one that long before the race ridden ends, to start
    # as it ends (``Announcement``). 0: none (each race made when the one before is finished).
    announce: int = 0


@dataclass
class Totals:
    sent: int = 0
    published: int = 0  # sent over MQTT and acknowledged (PUBACK: received; what counted is on the board)
    accepted: int = 0
    duplicates: int = 0
    rejected: int = 0
    late_ticks: int = 0
    races_finished: int = 0
    lags: list = field(default_factory=list)  # seconds from accepted to shown on the race leaderboard
    answers: list = field(default_factory=list)  # seconds each telemetry post took to be answered
    audiences: list = field(default_factory=list)  # per race: push and polling viewers' freshness (Audience)
    started: float = field(default_factory=time.monotonic)

    def add(self, sent: int, response: dict) -> None:
        self.sent += sent
        self.accepted += response["accepted"]
        self.duplicates += response["duplicates"]
        self.rejected += len(response["rejected"])

    def add_published(self, samples: int) -> None:
        self.sent += samples
        self.published += samples

    def summary(self) -> str:
        lag = ""
        if self.lags:
            ordered = sorted(self.lags)
            p50, p95 = ordered[len(ordered) // 2], ordered[int(len(ordered) * 0.95)]
            lag = f", leaderboard lag p50 {p50:.2f} s p95 {p95:.2f} s max {ordered[-1]:.2f} s"
        for figures in self.audiences:
            lag += audience_summary(figures)
        mqtt = f" (published over MQTT {self.published}: counted on the board)" if self.published else ""
        return (f"races finished {self.races_finished}, samples sent {self.sent}{mqtt}, "
                f"accepted {self.accepted}, duplicates {self.duplicates}, rejected {self.rejected}, "
                f"late ticks {self.late_ticks}, elapsed {time.monotonic() - self.started:.1f} s{lag}")


def audience_summary(figures: dict) -> str:
    push, poll = figures["push"], figures["poll"]
    text = ""
    if push.get("n"):
        text += (f"; {figures['viewers']} push viewers: shown after p50 {push['p50']:.2f} s, p95 {push['p95']:.2f} s "
                 f"(max {push['max']:.2f} s), {figures['messages_per_second']:.2f} messages/s of "
                 f"{figures['bytes_per_message']['mean']:,.0f} bytes")
    if poll.get("n"):
        text += f"; {figures['pollers']} pollers (1 s): p50 {poll['p50']:.2f} s, p95 {poll['p95']:.2f} s"
    return text


def chunks(items: list, size: int = MAX_SAMPLES_PER_REQUEST):
    for start in range(0, len(items), size):
        yield items[start:start + size]


def racer_ids(settings: Settings) -> list[str]:
    names = [f"{settings.racer_prefix}-{number:04d}" for number in range(1, settings.racers + 1)]
    return [str(uuid.uuid5(uuid.NAMESPACE_URL, name)) for name in names] if settings.cognito_ids else names


class Simulator:
    """Drives ``settings.races`` races (or until ``stop`` is set) through ``client``.

    ``clock``: the server's clock where the simulator shares it (anything with ``now()``, epoch seconds: the
    local stack's, which a test may move); by default this machine's. Races start and seconds are posted by it."""

    def __init__(self, client: ApiClient, settings: Settings, *, progress: ProgressBar | None = None,
                 stop: threading.Event | None = None, clock=None):
        self.client, self.settings = client, settings
        self._now = clock.now if clock is not None else lambda: time.time()
        self.progress = progress or ProgressBar()
        self.stop = stop or threading.Event()
        self.totals = Totals()
        self.profiles = [RacerProfile.for_racer(racer_id) for racer_id in racer_ids(settings)]
        self.bikes: dict[str, ApiClient] = {}  # racerId -> a client holding that racer's own token
        self.mqtt: dict[str, MqttBike] = {}  # racerId -> that racer's connection to the broker (riding over MQTT)
        self.watch: LeaderboardWatch | None = None
        self.audience: Audience | None = None
        self.current_race: str | None = None
        self._finished = threading.Event()  # the current race finished by itself
        self._announced: Announcement | None = None  # the next race, made while this one is ridden

    def run(self) -> Totals:
        try:
            self.set_up()
            number = 0
            while not self.stop.is_set() and (self.settings.races is None or number < self.settings.races):
                number += 1
                self.race(number, last=self.settings.races is not None and number >= self.settings.races)
        finally:
            for bike in self.mqtt.values():
                bike.close()
        return self.totals

    def set_up(self) -> None:
        self.client.call("PUT", f"/classes/{self.settings.class_id}",
                         {"name": self.settings.class_name, "metric": self.settings.metric,
                          "description": "Simulated racers, one race after another"})
        self._each_racer(lambda p: self.client.call("PUT", f"/racers/{p.racer_id}", {"name": p.name}))
        ingest = self.ingest()
        if self.settings.bikes or ingest:
            self.bikes = {p.racer_id: self.client.as_racer(p.racer_id) for p in self.profiles}
        if ingest:
            connected: dict[str, MqttBike] = {}
            self._each_racer(lambda p: connected.__setitem__(p.racer_id, MqttBike(ingest, self.bikes[p.racer_id].token or "")))
            self.mqtt = connected

    def ingest(self) -> dict | None:
        """The broker the racers publish to (GET /config.json's ``ingest``), or None: over HTTP."""
        if self.settings.transport == "http":
            return None
        found = (self.client.call("GET", "/config.json") or {}).get("ingest")
        if not found and self.settings.transport == "mqtt":
            raise RuntimeError(f"{self.client.base_url}/config.json names no MQTT broker (ingest)")
        return found or None

    @property
    def announcing(self) -> bool:
        """Whether races are up next ahead of their starts: at speed 1 (faster, the field posts seconds before
        they pass, so a race it rides started long before its first tick: ``head_start``)."""
        return self.settings.announce > 0 and self.settings.speed == 1

    def race(self, number: int, last: bool = True) -> None:
        """Rides race ``number``; unless it is the ``last``, the next one is announced while it is ridden."""
        settings = self.settings
        label = f"race {number}" + (f"/{settings.races}" if settings.races else "")
        announced, self._announced = self._announced, None
        if announced is not None:  # made while the race before was ridden: it starts as that one ended
            announced.join_all(self)
            race, starts = announced.race, announced.starts
            first = starts
        else:
            # The first tick once its racers have joined (or once it has been up next long enough); the race
            # started head_start before it (whole seconds: startsAt is ISO to the second, so the first tick
            # is a little earlier instead), and it finishes by itself at its end (the clock's): so tick k,
            # second k, has happened when posted.
            lead = join_lead_seconds(settings.racers) if settings.start_lead is None else settings.start_lead
            if self.announcing:
                lead = max(lead, settings.announce)
            ahead = head_start(settings.duration, settings.speed)
            first = math.ceil(self._now()) + lead
            starts = first - math.ceil(ahead)
            first = starts + ahead
            race = self._create(starts)
            self._each_racer(lambda p: self._join(race["raceId"], p))
            if self.announcing:
                self.progress.announce(label, race["startsAt"], starts - self._now())
        race_id = self.current_race = race["raceId"]
        if not self._wait_until(first):
            return
        self._finished.clear()
        efforts = [profile.in_race(race_id, settings.duration) for profile in self.profiles]
        interval = 1 / settings.speed
        self.watch = LeaderboardWatch(self.client, race_id, self.totals, self.stop).start() if settings.watch else None
        self.audience = None
        if settings.push_viewers or settings.pollers:
            from .audience import Audience

            self.audience = Audience(self.client.base_url, race_id, settings.push_viewers, settings.pollers,
                                     probe_seconds=settings.probe, probe_table=settings.probe_table, starts_at=starts).start()
        self._bike_pool = ThreadPoolExecutor(max_workers=min(BIKE_WORKERS, len(self.profiles)), thread_name_prefix="bike")
        try:
            clock = time.monotonic()
            for second in range(settings.duration):
                if self.stop.is_set():
                    return
                if self._finished.is_set():  # by itself at its end: a tick ran too late
                    break
                # second k has happened by the schedule (head_start); by the clock too, whatever the monotonic one did
                if not self._wait_until(starts + second):
                    return
                self._send([effort.sample(second) for effort in efforts], race_id)
                self.progress.show(label, second + 1, settings.duration, self.totals)
                if not last:
                    self._announce_next(number + 1, starts + settings.duration)
                clock += interval
                delay = clock - time.monotonic()
                if delay < 0:
                    self.totals.late_ticks += 1
                    clock = time.monotonic()  # catch up by riding on, not by bursting
                elif self.stop.wait(delay):
                    return
        finally:
            self._bike_pool.shutdown()
            if self.watch:
                self.watch.close()
            if self.audience:
                self.totals.audiences.append(self.audience.close())
                self.audience = None
        self.client.call("POST", f"/races/{race_id}/finish")
        self.totals.races_finished += 1
        self.progress.done(label, self.totals)

    def _create(self, starts: float) -> dict:
        return self.client.call("POST", f"/classes/{self.settings.class_id}/races",
                                {"startsAt": datetime.fromtimestamp(starts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                                 "durationSeconds": self.settings.duration},
                                headers={"Idempotency-Key": str(uuid.uuid4())})

    def _join(self, race_id: str, profile: RacerProfile) -> None:
        self.client.call("PUT", f"/races/{race_id}/racers/{profile.racer_id}", {"equipment": BIKE})

    def _announce_next(self, number: int, starts: float) -> None:
        """After a tick: the next race, to start at ``starts`` (as the race ridden ends), is made once it is
        ``announce`` s away, and its racers joined a few each tick (no tick of this race held up long)."""
        if not self.announcing:
            return
        if self._announced is None:
            if starts - self._now() <= self.settings.announce:
                self._announced = Announcement(self._create(starts), starts, list(self.profiles))
                label = f"race {number}" + (f"/{self.settings.races}" if self.settings.races else "")
                self.progress.announce(label, self._announced.race["startsAt"], starts - self._now())
            return
        self._announced.join_some(self)

    def _wait_until(self, moment: float) -> bool:
        """Waits until the clock is at ``moment`` (epoch seconds); False if stopped first."""
        while (wait := moment - self._now()) > 0:  # Event.wait may return a hair early: not before it
            if self.stop.wait(min(wait, CLOCK_CHECK_SECONDS)):
                return False
        return True

    def _send(self, samples: list[dict], race_id: str) -> None:
        """One tick's samples: one message per bike over MQTT, or batches of up to 1,000 from the simulator, or one
        post per bike."""
        path = f"/races/{race_id}/telemetry"

        def post(client: ApiClient, batch: list[dict]) -> None:
            sent = time.monotonic()
            try:
                response = client.call("POST", path, {"samples": batch})
                self.totals.answers.append(time.monotonic() - sent)
            except ApiError as error:
                if error.status != 409:
                    raise
                self._finished.set()  # the race finished by itself (its end passed): this race is over
                return
            self.totals.add(len(batch), response)
            if self.watch:
                self.watch.accepted(batch, response)
            if self.audience:
                self.audience.accepted(batch, response)

        if self.mqtt:  # the tick goes on; the acknowledgements are awaited (and the fallback sent) by the bikes' pool
            self._bike_pool.submit(self._acknowledged, self._publish(samples, race_id), post)
            return
        if not self.settings.bikes:
            for batch in chunks(samples):
                post(self.client, batch)
            return
        list(self._bike_pool.map(lambda s: post(self.bikes[s["racerId"]], [s]), samples))

    def _publish(self, samples: list[dict], race_id: str) -> tuple[float, list]:
        """Each racer's sample over its own connection, QoS 1: (when, [(sample, its message)])."""
        return time.monotonic(), [(sample, self.mqtt[sample["racerId"]].publish(race_id, [sample])) for sample in samples]

    def _acknowledged(self, published: tuple[float, list], post) -> None:
        """Waits for a tick's PUBACKs; a sample without one within PUBACK_SECONDS is posted over HTTP too."""
        sent, messages = published
        confirmed, unconfirmed = [], []
        for sample, info in messages:
            if MqttBike.confirmed(info, sent + PUBACK_SECONDS - time.monotonic()):
                confirmed.append(sample)
                self.totals.answers.append(time.monotonic() - sent)
            else:
                unconfirmed.append(sample)
        self.totals.add_published(len(confirmed))
        if self.watch:
            self.watch.received(confirmed)
        if self.audience:
            self.audience.received(confirmed)
        for sample in unconfirmed:
            post(self.bikes[sample["racerId"]], [sample])

    def _each_racer(self, call) -> None:
        def unless_stopped(profile: RacerProfile) -> None:
            if not self.stop.is_set():
                call(profile)

        with ThreadPoolExecutor(max_workers=SETUP_WORKERS) as pool:
            list(pool.map(unless_stopped, self.profiles))


@dataclass
class Announcement:
    """The next race, made while one is ridden: its racers still to join (``SETUP_WORKERS`` a tick)."""

    race: dict
    starts: float
    to_join: list

    def join_some(self, simulator: Simulator) -> None:
        batch, self.to_join = self.to_join[:SETUP_WORKERS], self.to_join[SETUP_WORKERS:]
        if batch:
            with ThreadPoolExecutor(max_workers=len(batch)) as pool:
                list(pool.map(lambda p: simulator._join(self.race["raceId"], p), batch))

    def join_all(self, simulator: Simulator) -> None:
        while self.to_join and not simulator.stop.is_set():
            self.join_some(simulator)


class LeaderboardWatch:
    """A viewer: polls the race leaderboard and times each accepted sample until the board shows it.

    A sample (racer, second) counts as shown once the racer's row has ``lastSecond >= second``;
    its lag is the time from the telemetry answer that accepted it to the first poll showing it
    (0 when the board showed it before the answer arrived).
    """

    def __init__(self, client: ApiClient, race_id: str, totals: Totals, stop: threading.Event):
        self.client, self.path, self.totals = client, f"/races/{race_id}/leaderboard?limit=1000", totals
        self._stop, self._closed = stop, threading.Event()
        self._lock = threading.Lock()
        self._accepted: dict[str, dict[int, float]] = {}   # racer -> second -> when accepted
        self._shown: dict[str, int] = {}                   # racer -> lastSecond seen on the board
        self._thread = threading.Thread(target=self._run, name="watch", daemon=True)

    def start(self) -> LeaderboardWatch:
        self._thread.start()
        return self

    def accepted(self, batch: list[dict], response: dict) -> None:
        if response["accepted"] == 0:
            return
        rejected = {(r["racerId"], r["second"]) for r in response["rejected"]}
        self.received([sample for sample in batch if (sample["racerId"], sample["second"]) not in rejected])

    def received(self, samples: list[dict]) -> None:
        """Samples the service took (accepted over HTTP; over MQTT, acknowledged), timed from now."""
        now = time.monotonic()
        with self._lock:
            for sample in samples:
                racer, second = sample["racerId"], sample["second"]
                if second <= self._shown.get(racer, -1):
                    self.totals.lags.append(0.0)
                else:
                    self._accepted.setdefault(racer, {}).setdefault(second, now)

    def close(self) -> None:
        self._closed.set()
        self._thread.join(timeout=5)
        self._poll()  # what the last poll missed still counts

    def _run(self) -> None:
        while not (self._closed.is_set() or self._stop.is_set()):
            try:
                self._poll()
            except Exception:  # noqa: BLE001 - a missed poll only widens the measured lag
                pass
            self._closed.wait(WATCH_SECONDS)

    def _poll(self) -> None:
        rows = self.client.call("GET", self.path)["items"]
        now = time.monotonic()
        with self._lock:
            for row in rows:
                racer, last = row["racerId"], row["lastSecond"]
                if last is None or last <= self._shown.get(racer, -1):
                    continue
                self._shown[racer] = last
                waiting = self._accepted.get(racer, {})
                for second in [s for s in waiting if s <= last]:
                    self.totals.lags.append(now - waiting.pop(second))
