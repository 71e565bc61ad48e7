"""A race's ticker: its board pushed to viewers once a race second, on the race's clock (``alleycat.clock``,
the server's), at the phase ``rules.ticking`` sets; a last message once the race is settled.

The stream processor invokes the ticker (asynchronously) when a race is created (``start``). Far from the
start it schedules itself (a one-time EventBridge Scheduler schedule, as the finisher does) into the
minute before it; near it, it waits for the first tick and loops: at each tick it claims the race
second (``storage.tickers``: one message a second whoever ticks; a ticker that loses a claim is a
duplicate and stops), reads the race and its board (one Query) and publishes the board, with the racers
whose rows changed since its last message as the rows that moved. After the race's last second it
publishes only what changed (seconds sent late); once the race is settled, the finished message, once,
and stops. An invocation ticks for ``rules.ticking.RUN_SECONDS`` at most, then the next one (asked for
a few ticks ahead) takes over.
"""

from __future__ import annotations

from alleycat import clock, settings
from alleycat.edge import push
from alleycat.flows import pushing
from alleycat.rules import ticking
from alleycat.storage import entities as e
from alleycat.storage import races, tickers

RETRIES = 10  # the scheduler's invocations of the ticker that fail (throttled), then the dead letters
MAX_EVENT_AGE_SECONDS = 600
FINAL = 2**31 - 1  # the claim of the finished message: no ticker claims a second after it


def enabled() -> bool:
    """Whether races have tickers here (the stack sets the ticker; tests of other things do not)."""
    return settings.load().ticks_races


def schedule_name(race_id: str) -> str:
    return f"tick-{race_id}"


def start(race_id: str, ticker_arn: str | None = None, first: int | None = None) -> None:
    """The race's ticker invoked asynchronously: by the stream processor for a race just created, or by a
    ticker (``ticker_arn``, its own) handing over at race second ``first``."""
    from alleycat.aws import lambdas  # a new race's record, or a hand-over, only

    lambdas.invoke_later(ticker_arn or settings.load().needed(settings.TICKER_ARN),
                         {"raceId": race_id, **({} if first is None else {"from": first})})


def tick(race_id: str, publisher: pushing.Publisher | None, ticker_arn: str, owner: str, first: int | None = None) -> str:
    """The ticker's invocation (``ticker_arn``: its function; ``owner`` names the invocation; ``first``: the
    race second it takes over from):
    "scheduled" (the start is far: invoked again before it), "finished" (the last message sent),
    "handed over", "duplicate" (another ticker has the race), "gave up" (not settled in time), "left"."""
    race = races.get(race_id, consistent=True)
    start_at = None if race is None else clock.race_start(race.startsAt)
    if race is None or start_at is None or publisher is None:
        return "left"
    started = clock.now()
    if first is None:
        minute = ticking.minute_to_schedule(start_at, started)
        if minute is not None:
            _schedule(race, minute, ticker_arn)
            return "scheduled"
    last_tick = ticking.last_tick(start_at, started)
    sent: dict[str, list] | None = None  # racerId -> row of this invocation's last message
    top: set[str] | None = None  # the racers of its top rows (their names sent)
    second = (0 if first is None else first) - 1
    while True:
        second = ticking.next_second(start_at, clock.now(), second)
        if second > last_tick:
            return "handed over"
        wait = ticking.tick_at(start_at, second) - clock.now()
        if wait > 0:
            clock.sleep(wait)
        if second == ticking.hand_over_at(last_tick):
            start(race_id, ticker_arn, last_tick + 1)
        if not tickers.claim(race_id, second, owner):
            return "duplicate"
        race, boards = races.with_boards(race_id, consistent=True)
        if race is None:
            return "left"
        if race.settled:
            if tickers.claim(race_id, FINAL, owner):
                pushing.push_settled(publisher, race_id)
            return "finished"
        if ticking.waited_too_long(race.durationSeconds, second):
            return "gave up"
        if race.status != e.OPEN:  # finished, its ranks to come
            continue
        rows = {racer_id: row for board in boards for racer_id, row in board.standings.items()}
        changed = set(rows) if sent is None else {racer_id for racer_id, row in rows.items() if sent.get(racer_id) != row}
        sent = rows
        if second < race.durationSeconds or changed:
            left_out = pushing.push_board(publisher, race_id, boards, changed, race.status, top)
            if left_out is not None:
                top = push.top_racers(boards)
                for racer_id in left_out:  # changed still: in the next message if it has room
                    del sent[racer_id]


def _schedule(race: e.Race, minute: float, ticker_arn: str) -> None:
    """The ticker invoked again in ``minute``; a schedule an earlier invocation made for the race stands."""
    from alleycat.aws import scheduler  # far from the start only

    config = settings.load()
    scheduler.create_one_time_schedule(
        schedule_name(race.raceId), config.needed(settings.FINISH_SCHEDULE_GROUP), minute,
        f"Ticks race {race.raceId}'s board ({race.className}, {race.startsAt}, {race.durationSeconds} s)",
        ticker_arn, config.needed(settings.TICKER_SCHEDULE_ROLE_ARN), {"raceId": race.raceId},
        RETRIES, MAX_EVENT_AGE_SECONDS, config.needed(settings.TICKER_DEAD_LETTER_ARN))
