"""A race posted into a running stack as fast as a few threads can (the e2e tests and the bench post
two, back to back).

Each race: a fresh class, racers and race over HTTP, every racer joined, then one
telemetry request per race-second carrying every racer's sample, posted from ``threads``
threads; then the race leaderboard is polled until it equals the sums computed here
from the samples sent (``scores.output``), or ``timeout`` passes; then an admin finishes it.

A second counts only once it has happened by the server's clock (contract v1.2), and the race must
stay open while it is posted and settles: so the race is long (``DURATION``), and it started
``seconds`` (and a little more) before it is created. Every second posted (0 to ``seconds - 1``) has
then happened, and the race is not over for most of an hour: it ends by the admin's finish.
"""

from __future__ import annotations

import random
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

from alleycat.clock import iso
from alleycat.rules.scores import number, output

from .client import ApiClient

SETTLE_POLL_SECONDS = 0.1
DURATION = 3600  # the longest race there is: open long after its first ``seconds`` have been posted
HAPPENED_MARGIN = 2  # the race started this much more than ``seconds`` ago: its last second posted is past


def post_race(base_url: str, racers: int = 40, seconds: int = 120, threads: int = 4, timeout: float = 60) -> dict:
    if not 1 <= seconds <= DURATION - HAPPENED_MARGIN - timeout - 60:
        raise ValueError(f"seconds must leave the {DURATION} s race open while it is posted and settles")
    client = ApiClient(base_url)
    client.token = client.local_admin_token()
    tag = uuid.uuid4().hex[:8]
    client.call("PUT", f"/classes/b2b-{tag}", {"name": f"Back to back {tag}"})
    race_id = client.call("POST", f"/classes/b2b-{tag}/races",
                          # started long enough ago that every second posted has happened; open for the rest of the hour
                          {"startsAt": iso(time.time() - seconds - HAPPENED_MARGIN), "durationSeconds": DURATION},
                          headers={"Idempotency-Key": tag})["raceId"]
    ids = [f"b2b-{tag}-{n}" for n in range(racers)]
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda r: client.call("PUT", f"/racers/{r}", {"name": r}), ids))
        list(pool.map(lambda r: client.call("PUT", f"/races/{race_id}/racers/{r}"), ids))
    rng = random.Random(tag)
    values = {(r, s): (rng.randint(30, 90), rng.randint(33, 86)) for r in ids for s in range(seconds)}
    expected = {r: number(sum((output(*values[(r, s)]) for s in range(seconds)), Decimal(0))) for r in ids}

    def second(s: int) -> int:
        body = {"samples": [{"racerId": r, "second": s, "cadence": values[(r, s)][0],
                             "resistance": values[(r, s)][1]} for r in ids]}
        # with an Idempotency-Key, as the simulator sends it: a retried batch answers its first attempt's counts
        return client.call("POST", f"/races/{race_id}/telemetry", body,
                           headers={"Idempotency-Key": f"{tag}-{s}"})["accepted"]

    started = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        accepted = sum(pool.map(second, range(seconds)))
    posted = time.monotonic()
    board = {}
    while time.monotonic() - posted < timeout:
        rows = client.call("GET", f"/races/{race_id}/leaderboard?limit=1000")["items"]
        board = {row["racerId"]: row["score"] for row in rows}
        if board == expected:
            break
        time.sleep(SETTLE_POLL_SECONDS)
    settled = time.monotonic()
    finished = client.call("POST", f"/races/{race_id}/finish")["status"]  # an hour early: it was all posted
    return {"race_id": race_id, "racers": racers, "seconds": seconds, "accepted": accepted,
            "post_seconds": posted - started, "settle_seconds": settled - posted,
            "settled": board == expected, "board": board, "expected": expected, "finished": finished}
