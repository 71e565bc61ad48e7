"""A race over HTTP with the local stream running: concurrency, live board, finish."""

import itertools
import random
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

from alleycat.rules.scores import number, output

_ids = itertools.count()


def new_race(client, racers, duration=300, ridden=0):
    """A race with ``racers`` joined whose first ``ridden`` seconds have happened (it started that long
    ago, by the stack's clock): samples for them count (contract v1.2), and it is open for the rest."""
    n = next(_ids)
    admin = client.token("ops", ["admin"])
    class_id = f"flow-class-{n}"
    client.call("PUT", f"/classes/{class_id}", {"name": f"Flow {n}"}, admin)
    race_id = client.call("POST", f"/classes/{class_id}/races",
                          {"startsAt": client.starts_in(-ridden), "durationSeconds": duration}, admin)[1]["raceId"]
    names = [f"flow-{n}-{i}" for i in range(racers)]
    for racer_id in names:
        client.call("PUT", f"/racers/{racer_id}", {"name": racer_id.title()}, admin)
        assert client.call("PUT", f"/races/{race_id}/racers/{racer_id}", token=admin)[0] == 200
    return admin, class_id, race_id, names


def settle(stack, client, race_id, expected, timeout=20):
    """Waits until the race board shows the expected scores (the contract allows 2 s)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = client.call("GET", f"/races/{race_id}/leaderboard?limit=1000")[1]["items"]
        got = {row["racerId"]: row["score"] for row in rows}
        if got == expected or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


def test_concurrent_overlapping_batches_count_each_sample_once(stack, client):
    # Given a race 60 s in with 5 racers and 4 callers sending overlapping, shuffled batches of those seconds
    admin, _, race_id, racers = new_race(client, 5, ridden=60)
    rng = random.Random(7)
    values = {(r, s): (rng.randint(30, 90), rng.randint(33, 86)) for r in racers for s in range(60)}
    batches = []
    for _ in range(4):
        keys = [k for k in values if rng.random() < 0.7]
        rng.shuffle(keys)
        for start in range(0, len(keys), 50):
            batches.append([{"racerId": r, "second": s, "cadence": values[(r, s)][0],
                             "resistance": values[(r, s)][1]} for r, s in keys[start:start + 50]])
    rng.shuffle(batches)
    # When they are posted from 8 threads at once
    with ThreadPoolExecutor(max_workers=8) as pool:
        responses = list(pool.map(lambda b: client.call("POST", f"/races/{race_id}/telemetry", {"samples": b}, admin),
                                  batches))
    assert all(status == 200 for status, _ in responses)
    sent = {(s["racerId"], s["second"]) for batch in batches for s in batch}
    # Then every distinct sample was accepted exactly once, and the board shows exact sums
    assert sum(body["accepted"] for _, body in responses) == len(sent)
    assert sum(body["duplicates"] for _, body in responses) == sum(map(len, batches)) - len(sent)
    expected = {r: number(sum((output(*values[(who, s)]) for who, s in sent if who == r), Decimal(0))) for r in racers}
    assert settle(stack, client, race_id, expected) == expected


def test_finish_flow_ranks_results_fills_class_board_and_closes_the_race(stack, client):
    # Given a 5-minute race a minute in, whose 3 racers rode its first 60 seconds
    admin, class_id, race_id, racers = new_race(client, 3, ridden=60)
    cadence = {racers[0]: 50, racers[1]: 90, racers[2]: 70}
    samples = [{"racerId": r, "second": s, "cadence": cadence[r], "resistance": 50} for r in racers for s in range(60)]
    assert client.call("POST", f"/races/{race_id}/telemetry", {"samples": samples}, admin)[1]["accepted"] == 180
    # When the admin finishes the race
    assert client.call("POST", f"/races/{race_id}/finish", token=admin) == (200, {"raceId": race_id, "status": "finished"})
    # Then telemetry is refused, and within 5 s ranks and the class board appear
    assert client.call("POST", f"/races/{race_id}/telemetry", {"samples": samples[:1]}, admin)[0] == 409
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        board = client.call("GET", f"/classes/{class_id}/leaderboard")[1]["items"]
        if len(board) == 3:
            break
        time.sleep(0.1)
    assert [row["racerId"] for row in board] == [racers[1], racers[2], racers[0]]
    assert [row["rank"] for row in board] == [1, 2, 3] and all(row["raceId"] == race_id for row in board)
    for rank, racer_id in enumerate([racers[1], racers[2], racers[0]], start=1):
        deadline = time.monotonic() + 5
        while True:
            result = client.call("GET", f"/racers/{racer_id}/results")[1]["items"][0]
            if result["rank"] is not None or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert (result["status"], result["rank"], result["lastSecond"]) == ("finished", rank, 59)
    samples = client.call("GET", f"/racers/{racers[1]}/history?raceId={race_id}")[1]["races"][0]["samples"]
    assert [(s, c, r) for s, c, r, *_ in samples] == [(s, 90, 50) for s in range(60)]  # every second, as posted
    assert client.call("PUT", f"/races/{race_id}/racers/{racers[0]}", token=admin)[0] == 409


def test_a_racer_may_send_only_their_own_samples(stack, client):
    _, _, race_id, racers = new_race(client, 2)
    own = client.token(racers[0])
    mine = {"racerId": racers[0], "second": 0, "cadence": 60, "resistance": 40}
    theirs = {**mine, "racerId": racers[1]}
    assert client.call("POST", f"/races/{race_id}/telemetry", {"samples": [mine, theirs]}, own)[0] == 403
    assert client.call("POST", f"/races/{race_id}/telemetry", {"samples": [mine]}, own)[1]["accepted"] == 1
    assert client.call("POST", f"/races/{race_id}/telemetry", {"samples": [mine]})[0] == 401


def test_two_races_posted_back_to_back_both_settle_to_the_independent_sums(stack):
    # Given a running local stack (the moto-era stack slowed down with everything ever written)
    from simulator.backtoback import post_race

    # When two 40-racer, 40-second races (two history chunks each: 30 seconds and 10) are posted one
    # after the other, as fast as 4 threads can
    first, second = post_race(stack.url, seconds=40), post_race(stack.url, seconds=40)
    # Then both leaderboards reach exactly the sums computed from the samples sent
    for race in (first, second):
        assert race["accepted"] == 40 * 40 and race["finished"] == "finished"
        assert race["settled"], {k: (race["board"].get(k), v) for k, v in race["expected"].items()
                                 if race["board"].get(k) != v}
