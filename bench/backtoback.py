"""Two races posted back to back into a fresh local stack (``simulator.backtoback``): times, and memory."""

from __future__ import annotations

from local.server import LocalStack
from simulator.backtoback import post_race

from .env import say


def measure(races: int = 2) -> list[dict]:
    stack = LocalStack(port=0).start()
    try:
        out = []
        for ordinal in range(1, races + 1):
            race = post_race(stack.url)
            race.pop("board"), race.pop("expected")
            race["memory"] = stack.memory()
            out.append(race)
            say(f"local stack: race {ordinal} ({race['racers']} racers x {race['seconds']} s) posted in "
                f"{race['post_seconds']:.1f} s, settled {race['settle_seconds']:.1f} s after the last post "
                f"({'equal to the independent sums' if race['settled'] else 'NOT SETTLED'}); {race['memory']}")
        return out
    finally:
        stack.stop()
