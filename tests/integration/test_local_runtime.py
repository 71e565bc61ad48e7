"""The local server's runtime (local/runtime.py): concurrent invocations never see each other's event."""

import json
import os
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from local.events import sample_event
from local.runtime import Runtime, WorkerDied
from local.server import WORKER_NAMES

from .conftest import ADMIN, racer_claims


@pytest.fixture
def runtime(table):
    """Worker processes started after the table exists, so they inherit its environment; each imports the
    functions these tests call as it starts (every function, unless named: seconds of CPU for nothing)."""
    running = Runtime(workers=4, functions=("put_racer", "join_race", "post_telemetry"))
    yield running
    running.stop()


def call(runtime, function, path=None, body=..., claims=...):
    response = runtime.invoke(function, sample_event(function, path, body, ..., claims))
    return response["statusCode"], json.loads(response["body"])


def test_simultaneous_invocations_each_answer_their_own_request(runtime):
    # Given 64 racers each renaming themself at the same moment through the same function
    racers = [f"racer-{n}" for n in range(64)]

    def rename(racer_id):
        return call(runtime, "put_racer", {"racerId": racer_id}, {"name": f"Name of {racer_id}"}, racer_claims(racer_id))

    # When the invocations overlap, threads switching as often as the interpreter allows
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(max_workers=32) as pool:
            answers = list(pool.map(rename, racers * 3))
    finally:
        sys.setswitchinterval(interval)
    # Then every answer is about the request that asked it: its racer, its name, its caller
    assert answers == [(200, {"racerId": r, "name": f"Name of {r}"}) for r in racers * 3]


def test_simultaneous_copies_of_a_batch_count_each_sample_once(runtime, race):
    # Given three joined racers and 12 callers holding the same 60 seconds of their samples
    racers = ("r1", "r2", "r3")
    for racer_id in racers:
        call(runtime, "put_racer", {"racerId": racer_id}, {"name": racer_id}, ADMIN)
        call(runtime, "join_race", {"raceId": race["raceId"], "racerId": racer_id}, claims=ADMIN)
    batch = [{"racerId": r, "second": s, "cadence": 40 + s % 50, "resistance": 50} for r in racers for s in range(60)]
    # When all post it at the same moment (no lock anywhere: DynamoDB applies each conditional write atomically)
    with ThreadPoolExecutor(max_workers=12) as pool:
        bodies = [body for _, body in pool.map(
            lambda _: call(runtime, "post_telemetry", {"raceId": race["raceId"]}, {"samples": batch}, ADMIN), range(12))]
    # Then every sample was accepted exactly once across the callers
    assert sum(b["accepted"] for b in bodies) == len(batch)
    assert sum(b["duplicates"] for b in bodies) == 11 * len(batch)


@pytest.mark.parametrize("role", sorted(WORKER_NAMES))
def test_each_worker_process_is_named_after_what_it_runs(table, role):
    # Given a runtime of one worker named for its role, as the local stack starts them
    running = Runtime(workers=1, functions=("get_classes",), name=WORKER_NAMES[role])
    try:
        # Then its worker shows that name, whole, where ps, top and the bench read it
        [pid] = running.pids()
        assert Path(f"/proc/{pid}/comm").read_text().strip() == WORKER_NAMES[role]
    finally:
        running.stop()


def gone(runtime, pid):
    """Waits (bounded: a process's end, not time) until ``pid`` is no longer among the runtime's workers."""
    deadline = time.monotonic() + 10
    while pid in runtime.pids():
        assert time.monotonic() < deadline, f"worker {pid} still running"
        time.sleep(0.01)


def test_a_dead_worker_is_replaced_and_only_an_invocation_it_held_fails(table):
    # Given a runtime of one worker (importing no function: a process's start is what this test pays)
    running = Runtime(workers=1, functions=None)
    try:
        [first] = running.pids()
        # When the worker is killed while idle, the next invocation runs in a new process, and does not fail
        os.kill(first, signal.SIGKILL)
        gone(running, first)
        second = running.call(os.getpid)
        assert second != first
        # And the one running when its worker is killed fails as Lambda's Runtime.ExitError does: WorkerDied
        with pytest.raises(WorkerDied):
            running.call(os.kill, second, signal.SIGKILL)
        assert running.pids() == []  # replaced as the next invocation comes
    finally:
        running.stop()
