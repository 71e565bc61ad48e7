"""Race day on `make local` in real time: every bike sends its own sample each second with its own token while
viewers poll the race's board: over MQTT (the stack's broker, GET /config.json's ``ingest``), or over HTTP with
``BENCH_HTTP=1``. Late ticks, how long a post waits for its answer (over MQTT: its PUBACK), how long an accepted
(acknowledged) second takes to show on the board, where the machine's CPU goes per bike-second (each process of the stack, and the bikes and
viewers), every second counted once; the same three times on fresh stacks, and race after race on one stack
(does a long `make local` slow down?)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from local.server import WORKER_NAMES
from simulator.audience import percentiles

from .env import say
from .push import LoadSampler, local_stack

QUICK = os.environ.get("BENCH_QUICK") == "1"
TRANSPORT = "http" if os.environ.get("BENCH_HTTP") == "1" else "mqtt"
RACERS, SECONDS, POLLERS = (20, 60, 2) if QUICK else (100, 120, 5)
RUNS = 1 if QUICK else 3
LONG_RACES, LONG_SECONDS = (2, 60) if QUICK else (3, 300)
LATE_TICKS_GOAL, FRESHNESS_P95_GOAL = 0.05, 2.0  # issue 44: at most 5 % of ticks late, the board fresh within 2 s at p95
ROLES = {"java": "DynamoDB Local", WORKER_NAMES["api"]: "API functions", WORKER_NAMES["stream"]: "stream function",
         WORKER_NAMES["ticker"]: "races' tickers", WORKER_NAMES["finisher"]: "finisher"}
SERVER = "server (HTTP, authorizer, stream poller, stand-ins)"
BIKES = "bikes and viewers (the simulator)"


def output(cadence: int, resistance: int) -> Decimal:
    """The contract's output of one second, computed here on its own: round((cadence + 35) × (resistance + 65) / 100, 4)."""
    return round(Decimal(cadence + 35) * Decimal(resistance + 65) / 100, 4)


def _stat(pid: int) -> tuple[str, float, int] | None:
    """(name, CPU seconds, parent) of a process, or None once it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name, rest = raw[raw.index("(") + 1:raw.rindex(")")], raw[raw.rindex(")") + 2:].split()
    return name, (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK"), int(rest[1])


def _rss(pid: int) -> int:
    try:
        line = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return 0
    return int(line.split()[1]) * 1024


@dataclass
class Snapshot:
    cpu: dict[str, float]  # role -> CPU seconds so far
    rss: int  # the stack's resident memory, bytes


def snapshot(root: int) -> Snapshot:
    """The CPU seconds of the stack's processes (``root`` and its descendants) by role, and of this process and
    its children (the bikes' threads and the viewers' process); the stack's memory."""
    stats = {int(pid): stat for pid in os.listdir("/proc") if pid.isdigit() and (stat := _stat(int(pid)))}
    children: dict[int, list[int]] = {}
    for pid, (_, _, parent) in stats.items():
        children.setdefault(parent, []).append(pid)
    stack, todo = [], [root]
    while todo:
        pid = todo.pop()
        stack.append(pid)
        todo += children.get(pid, [])
    cpu: dict[str, float] = {}
    for pid in stack:
        if pid in stats:
            name, seconds, _ = stats[pid]
            role = SERVER if pid == root else ROLES.get(name, "other")
            cpu[role] = cpu.get(role, 0.0) + seconds
    mine = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    cpu[BIKES] = sum(usage.ru_utime + usage.ru_stime for usage in mine)
    return Snapshot(cpu, sum(_rss(pid) for pid in stack))


def counted(client, race_id: str, profiles: list, seconds: int) -> int:
    """How many racers the race's board shows exactly as ridden: every second counted once (``lastSecond`` the last,
    the score the sum of the contract's output of each second the simulator sent, recomputed here)."""
    rows = {row["racerId"]: row for row in client.call("GET", f"/races/{race_id}/leaderboard?limit=1000")["items"]}
    exact = 0
    for profile in profiles:
        effort = profile.in_race(race_id, seconds)
        expected = sum(output(s["cadence"], s["resistance"]) for s in map(effort.sample, range(seconds)))
        row = rows.get(profile.racer_id)
        exact += bool(row and row["lastSecond"] == seconds - 1 and Decimal(str(row["score"])) == expected)
    return exact


def race(client, tag: str, root: int, seconds: int) -> dict:
    """One race of RACERS bikes for ``seconds`` on the stack at ``client``: its figures."""
    from simulator.progress import ProgressBar
    from simulator.race import Settings, Simulator

    settings = Settings(racers=RACERS, races=1, duration=seconds, bikes=True, watch=True, pollers=POLLERS, transport=TRANSPORT,
                        class_id=f"rt-{tag}", racer_prefix=f"rt-{tag}", cognito_ids=True)
    simulator = Simulator(client, settings, progress=ProgressBar(enabled=False))
    before = snapshot(root)
    with LoadSampler() as load:
        started = time.monotonic()
        totals = simulator.run()
        elapsed = time.monotonic() - started
    after = snapshot(root)
    race_id = simulator.current_race
    assert race_id is not None  # the race was created
    exact = counted(client, race_id, simulator.profiles, seconds)
    bike_seconds = max(totals.accepted + totals.published, 1)
    cpu_ms = {role: (after.cpu.get(role, 0.0) - before.cpu.get(role, 0.0)) * 1000 / bike_seconds
              for role in after.cpu if after.cpu.get(role, 0.0) > before.cpu.get(role, 0.0)}
    [audience] = totals.audiences or [{"poll": {"n": 0}}]
    return {
        "racers": RACERS, "seconds": seconds, "transport": TRANSPORT, "pollers": POLLERS, "elapsed_s": elapsed,
        "late_ticks": totals.late_ticks, "late_share": totals.late_ticks / seconds,
        "sent": totals.sent, "published": totals.published, "accepted": totals.accepted, "duplicates": totals.duplicates, "rejected": totals.rejected,
        "racers_exact": exact, "answer_s": percentiles(totals.answers), "freshness_s": percentiles(totals.lags),
        "polling_s": audience["poll"], "load_average": load.figures, "stack_rss_mb": after.rss / 2**20,
        "cpu_ms_per_bike_second": dict(sorted(cpu_ms.items(), key=lambda item: -item[1])),
        "cpu_ms_per_bike_second_total": sum(cpu_ms.values()),
    }


def met(run: dict) -> bool:
    return (run["late_share"] <= LATE_TICKS_GOAL and run["freshness_s"].get("p95", float("inf")) <= FRESHNESS_P95_GOAL
            and run["racers_exact"] == run["racers"]
            and run["accepted"] + run.get("published", 0) == run["racers"] * run["seconds"])


def on_a_stack(seconds: int, races: int) -> list[dict]:
    """``races`` races of ``seconds``, one after another, on one `make local` (its own process, as `make local` runs)."""
    from simulator.client import ApiClient

    stack, url, _ = local_stack()
    try:
        client = ApiClient(url)
        client.token = client.local_admin_token()
        runs = []
        for number in range(1, races + 1):
            say(f"real time: {RACERS} bikes sending over {TRANSPORT.upper()} every second with their own tokens for {seconds} s, "
                f"{POLLERS} viewers polling (race {number} of {races} on this stack)")
            runs.append(run := race(client, uuid.uuid4().hex[:6], stack.pid, seconds))
            say(f"real time: late ticks {run['late_ticks']} of {seconds}, answered p95 {run['answer_s']['p95']:.2f} s, "
                f"on the board p95 {run['freshness_s']['p95']:.2f} s, {run['racers_exact']}/{RACERS} racers exact, "
                f"{run['cpu_ms_per_bike_second_total']:.1f} ms CPU a bike-second, load {run['load_average']['during_mean']:.1f}")
        return runs
    finally:
        stack.send_signal(signal.SIGTERM)
        try:
            stack.wait(timeout=60)
        except subprocess.TimeoutExpired:
            stack.kill()


def stage() -> dict:
    """``make bench``'s real-time stage: RUNS races of SECONDS, each on a fresh stack, then LONG_RACES races of
    LONG_SECONDS on one stack."""
    runs = [run for _ in range(RUNS) for run in on_a_stack(SECONDS, 1)]
    long = on_a_stack(LONG_SECONDS, LONG_RACES)
    return {"runs": runs, "long": long, "met": all(map(met, runs)), "quick": QUICK,
            "goals": {"late_share": LATE_TICKS_GOAL, "freshness_p95_s": FRESHNESS_P95_GOAL}}
