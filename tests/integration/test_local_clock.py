"""The local stack's clocks, as function worker processes (spawned) see them."""

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor, TimeoutError

import pytest

from local.clock import ManualClock, WallClock

START = 1_795_631_700.0  # 2026-11-25T18:35:00Z
SPAWN = multiprocessing.get_context("spawn")

_clock: ManualClock | None = None
_sleeping = None


def _install(clock: ManualClock, sleeping) -> None:
    """A worker's initializer, as the local stack's runtime would install the clock."""
    global _clock, _sleeping
    _clock, _sleeping = clock, sleeping


def _now() -> float:
    return _clock.now()


def _sleep(seconds: float) -> float:
    _sleeping.set()
    _clock.sleep(seconds)
    return _clock.now()


@pytest.fixture
def worker():
    """A spawned worker process holding a ManualClock, and the clock; ``sleeping`` is set once it sleeps."""
    clock, sleeping = ManualClock(START), SPAWN.Event()
    with ProcessPoolExecutor(max_workers=1, mp_context=SPAWN, initializer=_install,
                             initargs=(clock, sleeping)) as pool:
        yield pool, clock, sleeping


def test_a_spawned_worker_reads_every_advance_of_the_test(worker):
    pool, clock, _ = worker
    assert pool.submit(_now).result(30) == START
    clock.advance(90.5)
    assert clock.now() == START + 90.5
    assert pool.submit(_now).result(5) == START + 90.5


def test_a_sleep_in_a_worker_ends_only_when_the_test_has_advanced_the_clock_far_enough(worker):
    pool, clock, sleeping = worker
    done = pool.submit(_sleep, 60)
    assert sleeping.wait(30)
    with pytest.raises(TimeoutError):
        done.result(0.2)
    clock.advance(59.5)
    with pytest.raises(TimeoutError):
        done.result(0.2)
    clock.advance(0.5)
    assert done.result(5) == START + 60


def test_the_manual_clock_stands_still_and_does_not_go_back():
    clock = ManualClock(START)
    time.sleep(0.02)
    assert clock.now() == START
    clock.sleep(0)  # nothing to wait for
    with pytest.raises(ValueError):
        clock.advance(-1)
    assert clock.now() == START


def test_the_wall_clock_is_real_time():
    clock = WallClock()
    before = time.time()
    clock.sleep(0.01)
    assert before + 0.01 <= clock.now() <= time.time()
