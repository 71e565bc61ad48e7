"""Progress lines, with the time since the benchmark started."""

import time

_START = time.perf_counter()


def say(message: str) -> None:
    print(f"[{time.perf_counter() - _START:6.1f}s] {message}", flush=True)
