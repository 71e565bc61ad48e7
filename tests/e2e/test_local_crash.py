"""The local stack survives a crashed worker (issue 54, item 5), as Lambda replaces a crashed execution environment:
what a killed worker held is answered or delivered again, and every accepted second counts once."""

import os
import signal
import threading
import time
from decimal import Decimal

from alleycat.rules.scores import number, output

from .test_mqtt_ingest import board, closed, connect, history, new_race, publish, sample, topic, until

WAIT_SECONDS = 10  # real time, for processes: a batch taken, a worker gone


def running(runtime, count):
    """The pids of ``count`` workers of ``runtime`` holding an invocation (waited for, bounded)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while len(pids := runtime.running_pids()) < count:
        assert time.monotonic() < deadline, f"{count} invocation(s) never reached the workers"
        time.sleep(0.01)
    return pids


def delivered(mapping, count):
    deadline = time.monotonic() + WAIT_SECONDS
    while mapping.delivered < count:
        assert time.monotonic() < deadline, "the telemetry log's records were never delivered"
        time.sleep(0.01)


def ridden(racer, seconds):
    return [{"racerId": racer, **sample(s, cadence=60 + s)} for s in seconds]


def test_workers_killed_mid_race_lose_nothing_and_count_nothing_twice(stack, client):
    # Given a race 60 s in, racers a and b posting over HTTP and c publishing over MQTT, and the stream worker frozen
    # holding a batch of their first seconds
    ingest = client.call("GET", "/config.json")[1]["ingest"]
    race_id, (a, b, c) = new_race(client, 3, ridden=60)
    tokens = {racer: client.token(racer) for racer in (a, b, c)}
    bike = connect(ingest, tokens[c])
    dead_letters = len(stack.stream.dead_letters), len(stack.history.dead_letters), len(stack.log.dead_letters)
    to_c = topic(ingest, race_id, c)
    post = lambda racer, seconds: client.call("POST", f"/races/{race_id}/telemetry",
                                              {"samples": ridden(racer, seconds)}, tokens[racer])
    [stream_worker] = stack.stream_runtime.pids()
    os.kill(stream_worker, signal.SIGSTOP)
    try:
        first = stack.log.delivered
        assert post(a, range(20)) == (200, {"accepted": 20, "duplicates": 0, "rejected": []})
        publish(bike, to_c, {"samples": [sample(s, cadence=60 + s) for s in range(20)]})
        delivered(stack.log, first + 1)  # the API's workers idle again
        # And the API worker that takes the next request frozen (the warmest: the one that served the last)
        api_worker = stack.runtime.call(os.getpid)
        os.kill(api_worker, signal.SIGSTOP)
        answers = []
        request = threading.Thread(target=lambda: answers.append(post(b, range(20))))
        request.start()
        # When both are killed, each holding its invocation, and c goes on publishing
        assert running(stack.runtime, 1) + running(stack.stream_runtime, 1) == [api_worker, stream_worker]
        for pid in (api_worker, stream_worker):
            os.kill(pid, signal.SIGKILL)
        request.join(WAIT_SECONDS)
        publish(bike, to_c, {"samples": [sample(s, cadence=60 + s) for s in range(20, 40)]})
        # Then b's request answers as an HTTP API answers a function error, and sent again it counts
        assert answers == [(500, {"message": "Internal Server Error"})]
        assert post(b, range(20)) == (200, {"accepted": 20, "duplicates": 0, "rejected": []})
        # And new workers took their places: every accepted second counts once, in the history and on the board,
        # nothing given up
        expected = {a: range(20), b: range(20), c: range(40)}
        for racer, seconds in expected.items():
            assert until(lambda racer=racer: history(client, race_id, racer), list(seconds)) == list(seconds)
        scores = {racer: (number(sum((output(60 + s, 50) for s in seconds), Decimal(0))), seconds[-1])
                  for racer, seconds in expected.items()}
        assert until(lambda: board(client, race_id), scores) == scores
        assert (len(stack.stream.dead_letters), len(stack.history.dead_letters), len(stack.log.dead_letters)) == dead_letters
        assert not {api_worker, stream_worker} & set(stack.runtime.pids() + stack.stream_runtime.pids())
    finally:
        closed(bike)
        for pid in stack.runtime.pids() + stack.stream_runtime.pids():
            os.kill(pid, signal.SIGCONT)
