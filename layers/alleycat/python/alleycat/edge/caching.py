"""Every Cache-Control the API sends, chosen here: how long CloudFront (and browsers) may keep an answer.

CloudFront's API cache policy has minimum and default TTL 0, so an answer is cached only as
long as its Cache-Control says (docs/edge.md). A read says how fresh its data must be; the
rules below then make every write, every error that is not a read's 4xx, and every 5xx
``no-store``. TTLs come from the contract's freshness promises minus the stream's lag
(docs/edge.md has the table and the reasons).
"""

from __future__ import annotations

from alleycat.storage.entities import FINISHED

NO_STORE = "no-store"
SAFE_METHODS = ("GET", "HEAD")


def public(seconds: int) -> str:
    return f"public, max-age={seconds}"


# An open race's leaderboard must reflect telemetry within 2 s and the stream lags up to ~1 s;
# after a finish, ranks and the class leaderboard must show within 5 s, with Bests paced at
# 400/s (2.5 s for 1,000 racers): what moves while a race is live or settling keeps 1 s.
LIVE = public(1)
# The class's race list: no freshness promise beyond the finish's 5 s; a new race shows within 5 s.
LISTING = public(5)
# A finished race's leaderboard: ranks are final, but a racer's rename still reaches it.
SETTLED = public(60)
# What can no longer change: a finished race (status, start, duration and racer count are frozen).
FROZEN = public(86_400)
# A read's client error: the racer, class or race may exist a moment later.
READ_ERROR = public(1)


def race(status: str) -> str:
    return FROZEN if status == FINISHED else LIVE


def race_leaderboard(status: str) -> str:
    return SETTLED if status == FINISHED else LIVE


def error(method: str, status: int) -> str:
    """A 4xx of a read may be kept a second (it spares the table a flood of the same miss);
    a write's error and any 5xx never are."""
    return READ_ERROR if method in SAFE_METHODS and 400 <= status < 500 else NO_STORE
