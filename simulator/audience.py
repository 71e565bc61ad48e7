"""A race's viewers, for measuring how fresh their boards are: push subscribers and pollers.

``Audience`` runs in a process of its own (so the bikes' threads do not delay what the viewers
see): ``push`` viewers, each on its own WebSocket to the site's Event API (``/config.json``, AWS
AppSync Events or the local stand-in: the same protocol), subscribed to ``/races/<raceId>``; and
``pollers`` that read ``GET /races/{raceId}/leaderboard`` every ``poll_seconds``, as the race page
did before push (each at a random phase).

A sample (racer, second) is **shown** to a viewer once its board has the racer at ``lastSecond >=
second``; its freshness is the time from the telemetry answer that accepted it (``accepted()``, in
the bikes' process; both sides read ``time.monotonic()``, one clock for every process on Linux) to
the first message or poll that showed it (0 when it was shown before the answer arrived). Every
viewer counts: 100 viewers of 100 racers for 120 s are 1.2 million measured samples.

Where the time goes: a **probe** reads the board every ``probe_seconds`` (0: none), from the table itself when
``probe_table`` names it (else through the API, as a poller does: then behind the API's workers); the first
read that shows a sample is when it was on the board (up to ``probe_seconds`` late).
So a pushed viewer's freshness splits into **upstream** (accepted → on the board: the telemetry write, the
stream's batching window, the board write) and **the push** (on the board → the viewer: the wait for the
race's next tick, the read, the publish, the delivery). With the race's start (``starts_at``, epoch
seconds) it also says when in a race second each message reached viewer 0, and, for each phase a ticker
could have, the p95 its viewers would have seen (the ticker's phase is chosen from it:
``alleycat.rules.ticking.PHASE``).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import queue
import random
import threading
import time
import urllib.request
from collections import defaultdict

from alleycat.edge.push import decoded
from alleycat.edge.push import key as racer_key

PROTOCOL = "aws-appsync-event-ws"
READY_SECONDS = 60


def percentiles(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(len(ordered) * q))]
    return {"n": len(ordered), "p5": pick(0.05), "p50": pick(0.50), "p95": pick(0.95), "p99": pick(0.99), "max": ordered[-1],
            "mean": sum(ordered) / len(ordered)}


class Audience:
    """``start()`` returns once every push viewer is subscribed; ``close()`` returns the figures."""

    def __init__(self, base_url: str, race_id: str, push: int = 100, pollers: int = 5, poll_seconds: float = 1.0,
                 probe_seconds: float = 0.0, starts_at: float | None = None, probe_table: str | None = None):
        self.args = (base_url.rstrip("/"), race_id, push, pollers, poll_seconds, probe_seconds, probe_table, starts_at)
        context = multiprocessing.get_context("spawn")
        self._inbox, self._outbox = context.Queue(), context.Queue()
        self._ready, self._stop = context.Event(), context.Event()
        self._process = context.Process(target=_run, args=(*self.args, self._inbox, self._outbox, self._ready, self._stop),
                                        name="audience", daemon=True)

    def start(self) -> Audience:
        self._process.start()
        if not self._ready.wait(READY_SECONDS):
            self._process.terminate()
            raise RuntimeError("the audience's viewers did not all subscribe in time")
        return self

    def accepted(self, batch: list[dict], response: dict) -> None:
        """The samples of a telemetry request its answer accepted, stamped now."""
        if response.get("accepted", 0) == 0:
            return
        rejected = {(r["racerId"], r["second"]) for r in response.get("rejected", [])}
        self.received([s for s in batch if (s["racerId"], s["second"]) not in rejected])

    def received(self, samples: list[dict]) -> None:
        """Samples the service took (over MQTT: acknowledged), stamped now."""
        if samples:
            now = time.monotonic()
            self._inbox.put([(s["racerId"], s["second"], now) for s in samples])

    def close(self, grace_seconds: float = 3.0) -> dict:
        """Waits ``grace_seconds`` for the last samples to show, then stops the viewers."""
        time.sleep(grace_seconds)
        self._stop.set()
        try:
            return self._outbox.get(timeout=120)
        finally:
            self._process.join(timeout=10)


# --- the viewers' process ----------------------------------------------------------------------------


class Board:
    """What one viewer's board shows: racer -> lastSecond, and when each second first showed."""

    def __init__(self, shown: dict):
        self.last: dict[str | int, int] = {}
        self._shown = shown  # (racer, second) -> [first time shown, one per viewer]

    def show(self, racer: str | int, last, now: float) -> None:
        if last is None:
            return
        before = self.last.get(racer, -1)
        if last > before:
            self.last[racer] = last
            for second in range(before + 1, last + 1):
                self._shown[(racer, second)].append(now)


def _run(base_url, race_id, push, pollers, poll_seconds, probe_seconds, probe_table, starts_at, inbox, outbox, ready, stop) -> None:
    accepted: dict[tuple[str, int], float] = {}

    def drain() -> None:  # the bikes' accepted samples, as they come
        while True:
            try:
                batch = inbox.get(timeout=0.2)
            except queue.Empty:
                if stop.is_set():
                    return
                continue
            for racer, second, when in batch:
                accepted.setdefault((racer, second), when)

    drainer = threading.Thread(target=drain, daemon=True)
    drainer.start()
    result = asyncio.run(_watch(base_url, race_id, push, pollers, poll_seconds, probe_seconds, probe_table, ready, stop))
    drainer.join(timeout=5)
    # the race's start on the monotonic clock both processes read
    start = None if starts_at is None else starts_at - (time.time() - time.monotonic())
    outbox.put(_figures(result, accepted, push, pollers, start))


async def _watch(base_url, race_id, push, pollers, poll_seconds, probe_seconds, probe_table, ready, stop) -> dict:
    with urllib.request.urlopen(f"{base_url}/config.json", timeout=30) as response:
        events = json.loads(response.read()).get("events")
    push_shown: defaultdict[tuple[str, int], list[float]] = defaultdict(list)
    poll_shown: defaultdict[tuple[str, int], list[float]] = defaultdict(list)
    probe_shown: defaultdict[tuple[str, int], list[float]] = defaultdict(list)
    messages: list[tuple[float, int, int, int]] = []  # (time, event bytes, rows, the message's "at") as viewer 0 got them
    subscribed = asyncio.Event()
    counter = {"subscribed": 0, "messages": 0, "errors": 0}
    tasks = []
    if push and not events:
        raise RuntimeError(f"{base_url}/config.json names no Event API: push is off there")
    for index in range(push):
        tasks.append(asyncio.create_task(_subscriber(events, race_id, Board(push_shown), index == 0, messages,
                                                     counter, push, subscribed)))
    if push:
        await asyncio.wait_for(subscribed.wait(), READY_SECONDS)
    for _ in range(pollers):
        tasks.append(asyncio.create_task(_poller(base_url, race_id, Board(poll_shown), poll_seconds, counter)))
    if probe_seconds:
        read = _table_reader(race_id, probe_table) if probe_table else None
        tasks.append(asyncio.create_task(_poller(base_url, race_id, Board(probe_shown), probe_seconds, counter, read)))
    ready.set()
    while not stop.is_set():
        await asyncio.sleep(0.1)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"push": push_shown, "poll": poll_shown, "probe": probe_shown, "messages": messages, "counter": counter}


async def _subscriber(events, race_id, board: Board, record: bool, messages, counter, push, subscribed) -> None:
    import base64

    from websockets.asyncio.client import connect
    from websockets.typing import Subprotocol

    authorization = {"host": events["host"], "x-api-key": events["apiKey"]}
    header = base64.urlsafe_b64encode(json.dumps(authorization).encode()).decode().rstrip("=")
    async with connect(events["realtime"], subprotocols=[Subprotocol(PROTOCOL), Subprotocol(f"header-{header}")], compression=None,
                       open_timeout=60, max_size=None) as socket:
        await socket.send('{"type":"connection_init"}')
        sub_id = f"viewer-{id(board)}"
        async for raw in socket:
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "connection_ack":
                await socket.send(json.dumps({"type": "subscribe", "id": sub_id, "channel": f"/races/{race_id}",
                                              "authorization": authorization}))
            elif kind == "subscribe_success":
                counter["subscribed"] += 1
                if counter["subscribed"] == push:
                    subscribed.set()
            elif kind == "data" and message.get("id") == sub_id:
                now = time.monotonic()
                event = decoded(json.loads(message["event"]))
                for row in event.get("rows", []):
                    board.show(racer_key(row[1][0]) if isinstance(row[1], list) else row[1], row[3], now)  # by key (v4)
                if record:
                    messages.append((now, len(message["event"].encode()), len(event.get("rows", [])), event.get("at") or 0))
                    counter["messages"] += 1
            elif kind in ("subscribe_error", "connection_error", "error"):
                counter["errors"] += 1


def _table_reader(race_id: str, probe_table: str):
    """The race's board read straight from the table (``"<endpoint> <table>"``) by the read the board route makes
    (``alleycat.storage.races.with_boards``: the shards, the rosters and, with the fan-in, the slice boards),
    strongly consistent, as the route's rows: the probe then waits behind no API worker. The audience's process
    is its own, so its layer reads that table."""
    import os

    from alleycat import settings
    from alleycat.rules.board import Board as Standings
    from alleycat.storage import dynamo, races

    endpoint, table = probe_table.split()
    os.environ.update(TABLE_NAME=table, AWS_ENDPOINT_URL_DYNAMODB=endpoint)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "probe")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    settings.reset()
    dynamo.client.cache_clear()

    def read() -> list[dict]:
        _, boards = races.with_boards(race_id, consistent=True)
        return [{"racerId": row.racer_id, "lastSecond": row.last_second}
                for row in Standings.from_shards(boards).standings.values()]

    return read


async def _poller(base_url, race_id, board: Board, poll_seconds: float, counter, read=None) -> None:
    url = f"{base_url}/races/{race_id}/leaderboard?limit=1000"

    def over_http() -> list[dict]:
        with urllib.request.urlopen(url, timeout=30) as response:
            return json.loads(response.read())["items"]

    read = read or over_http

    await asyncio.sleep(random.uniform(0, poll_seconds))
    while True:
        started = time.monotonic()
        try:
            rows = await asyncio.to_thread(read)
            now = time.monotonic()
            for row in rows:
                board.show(row["racerId"], row["lastSecond"], now)
        except Exception as error:  # noqa: BLE001 - counted (a refused read, a timeout), the poller reads on
            counter["errors"] += 1
            counter.setdefault("first_error", repr(error))
        await asyncio.sleep(max(0.0, poll_seconds - (time.monotonic() - started)))


def _lags(shown: dict, accepted: dict, viewers: int) -> tuple[list[float], int]:
    """Freshness of every (sample, viewer); and how many (sample, viewer) pairs never showed."""
    lags, missing = [], 0
    for key, when in accepted.items():
        times = shown.get(key, [])
        lags += [max(0.0, t - when) for t in times]
        missing += viewers - len(times)
    return lags, missing


def _split(pushed: dict, probed: dict, accepted: dict, start: float | None) -> dict:
    """Pushed freshness split at the probe's first sight of each sample on the board: upstream (accepted → on
    the board) and the push (on the board → each viewer)."""
    on_board = {key: times[0] for key, times in probed.items() if times and key in accepted}
    upstream = [max(0.0, when - accepted[key]) for key, when in on_board.items()]
    pushed_after = [max(0.0, t - when) for key, when in on_board.items() for t in pushed.get(key, [])]
    return {"upstream": percentiles(upstream), "push": percentiles(pushed_after), "phases": _phases(on_board, accepted, start)}


def _phases(on_board: dict, accepted: dict, start: float | None) -> dict:
    """For each phase (tenths of a second into a race second), the p95 a viewer would see if every sample went out
    at the first tick at that phase after the probe saw it on the board, the publish and delivery left out."""
    if start is None or not on_board:
        return {}
    modelled = {}
    for tenth in range(10):
        phase = tenth / 10
        modelled[f"{phase:.1f}"] = percentiles([when - accepted[key] + (phase - (when - start)) % 1
                                                for key, when in on_board.items()]).get("p95", 0.0)
    return modelled


def _by_racer(pushed: dict, accepted: dict) -> dict:
    """Pushed sightings keyed by racer id: a message (v4) names a racer by their key (``push.key``), by their id
    only where another racer of the board shares the key."""
    racers = {racer_key(racer): racer for racer, _ in accepted}
    return {(racers.get(who, who), second): times for (who, second), times in pushed.items()}


def _figures(result: dict, accepted: dict, push: int, pollers: int, start: float | None = None) -> dict:
    result = {**result, "push": _by_racer(result["push"], accepted)}
    push_lags, push_missing = _lags(result["push"], accepted, push)
    poll_lags, poll_missing = _lags(result["poll"], accepted, pollers)
    arrivals = [] if start is None else [(t - start) % 1 for t, _, _, _ in result["messages"]]
    offset = time.time() - time.monotonic()  # the messages' "at" (epoch ms, the ticker's read) on the monotonic clock
    delivered = [t - (at / 1000 - offset) for t, _, _, at in result["messages"] if at]
    messages = result["messages"]
    sizes = [size for _, size, _, _ in messages]
    span = messages[-1][0] - messages[0][0] if len(messages) > 1 else 0
    return {
        "viewers": push, "pollers": pollers, "samples_accepted": len(accepted),
        "push": {**percentiles(push_lags), "never_shown": push_missing},
        "poll": {**percentiles(poll_lags), "never_shown": poll_missing},
        "messages": len(messages), "messages_per_second": (len(messages) - 1) / span if span else 0.0,
        "bytes_per_message": percentiles(sizes), "rows_per_message": percentiles([rows for _, _, rows, _ in messages]),
        "errors": result["counter"]["errors"], "first_error": result["counter"].get("first_error"), "split": _split(result["push"], result["probe"], accepted, start),
        "message_phase": percentiles(arrivals),  # when in a race second viewer 0 got each message
        "read_to_viewer": percentiles(delivered),  # from the ticker's board read (the message's "at") to viewer 0
    }
