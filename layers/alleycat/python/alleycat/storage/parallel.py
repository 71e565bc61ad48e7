"""A batch's independent DynamoDB requests, run side by side on a small thread pool.

A bike's one write runs on the caller's thread: the pool is made only for two items or more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

WORKERS = 16  # requests in flight at once: well inside the client's 32 pooled connections


def map_all[T](function: Callable[[T], Any], items: Iterable[T], workers: int = WORKERS) -> list:
    """``function(item)`` for each item, in order; the first error is raised once every item ran."""
    items = list(items)
    if len(items) <= 1:
        return [function(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor, wait

    with ThreadPoolExecutor(max_workers=min(workers, len(items))) as pool:
        # not pool.map: its results, on the first error, cancel every item not yet started
        futures = [pool.submit(function, item) for item in items]
        wait(futures)
    return [future.result() for future in futures]


def outcomes[K](function: Callable[[K, Any], Any], work: dict[K, Any], workers: int = WORKERS) -> dict[K, Any]:
    """``function(key, value)`` for each of ``work``'s items: key -> its result, or the exception it raised."""
    def guarded(item):
        try:
            return item[0], function(*item)
        except Exception as error:  # noqa: BLE001 - handed back, to be mapped to what asked for it
            return item[0], error

    return dict(map_all(guarded, work.items(), workers))


def failed(result: Any) -> bool:
    return isinstance(result, Exception)
