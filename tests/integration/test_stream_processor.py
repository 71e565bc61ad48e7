"""The stream handler fed with real records read from DynamoDB Local's stream."""

import copy

import pytest

from alleycat import settings
from alleycat.rules.samples import Sample
from alleycat.settings import EVENT_API_URL
from alleycat.storage import classes, racers, races

from .conftest import ADMIN, Api, process, write_history


@pytest.fixture
def race(server):
    api = Api()
    api("put_class", body={"name": "Hill climb"}, claims=ADMIN)
    race_id = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 120}, claims=ADMIN)[1]["raceId"]
    for racer_id in ("a", "b", "c"):
        api("put_racer", {"racerId": racer_id}, body={"name": racer_id.upper()}, claims=ADMIN)
        api("join_race", {"raceId": race_id, "racerId": racer_id}, claims=ADMIN)
    samples = [{"racerId": r, "second": s, "cadence": c, "resistance": 50}
               for r, c in (("a", 90), ("b", 60), ("c", 75)) for s in range(0, 70)]
    assert api("post_telemetry", {"raceId": race_id}, body={"samples": samples}, claims=ADMIN)[1]["accepted"] == 210
    return api, race_id


def board(api, race_id):
    return {row["racerId"]: (row["score"], row["lastSecond"], row["rank"])
            for row in api("get_race_leaderboard", {"raceId": race_id}, query={"limit": "1000"})[1]["items"]}


EXPECTED = {"a": (70 * 143.75, 69, 1), "c": (70 * 126.5, 69, 2), "b": (70 * 109.25, 69, 3)}


def test_telemetry_records_set_scores_and_a_redelivery_changes_nothing(server, race):
    api, race_id = race
    records = server.read()
    # When the batch is handled
    assert process(records) == {"batchItemFailures": []}
    # Then the race board shows exact scores
    assert board(api, race_id) == EXPECTED
    # and the open race's results take the racer's chunks that are done (seconds 0-59): the
    # entry is written once a chunk, not every second
    result = api("get_racer_results", {"racerId": "a"}, query={})[1]["items"][0]
    assert (result["score"], result["lastSecond"]) == (60 * 143.75, 59)
    # When the same batch is delivered again
    assert process(records) == {"batchItemFailures": []}
    # Then nothing changed
    assert board(api, race_id) == EXPECTED


def test_a_failing_record_is_reported_and_the_rest_processed(server, race):
    api, race_id = race
    records = server.read()
    broken = copy.deepcopy(next(r for r in records if r["dynamodb"].get("NewImage", {}).get("type", {}).get("S") == "Chunk"))
    del broken["dynamodb"]["NewImage"]["PK"]
    broken["dynamodb"]["SequenceNumber"] = "1"
    response = process(records[:3] + [broken] + records[3:])
    assert response == {"batchItemFailures": [{"itemIdentifier": "1"}]}
    assert board(api, race_id) == EXPECTED


def test_finish_ranks_records_bests_and_compacts_idempotently(server, race):
    api, race_id = race
    process(server.read())
    history_before = api("get_racer_history", {"racerId": "a"}, query={"raceId": race_id})[1]
    # When the race is finished and the stream handles it, twice
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    finish_records = server.read()
    for _ in range(2):
        assert process(finish_records) == {"batchItemFailures": []}
        process(server.read())  # the compaction's own records
        # Then ranks, class records and history are final, and the same both times
        results = api("get_racer_results", {"racerId": "b"}, query={})[1]["items"][0]
        assert (results["status"], results["rank"], results["score"]) == ("finished", 3, 70 * 109.25)
        leaderboard = api("get_class_leaderboard", query={})[1]["items"]
        assert [(row["racerId"], row["rank"], row["bestScore"]) for row in leaderboard] == \
            [("a", 1, 70 * 143.75), ("c", 2, 70 * 126.5), ("b", 3, 70 * 109.25)]
        assert api("get_racer_history", {"racerId": "a"}, query={"raceId": race_id})[1] == history_before
    chunks = racers.chunks_of(race_id, "a")
    assert {type(chunk).__name__ for chunk in chunks} == {"PackedChunk", "Chunk"}
    assert all(not chunk.samples and chunk.sealed for chunk in chunks if type(chunk).__name__ == "Chunk")


def test_class_rename_reaches_its_races(server, race):
    api, race_id = race
    process(server.read())
    api("put_class", body={"name": "Mountain"}, claims=ADMIN)
    assert process(server.read()) == {"batchItemFailures": []}
    assert all(r.className == "Mountain" for r in classes.all_races("hill-climb"))


def finish_and_settle(server, api, race_id):
    """Processes what is pending, finishes the race and processes until the stream is quiet."""
    process(server.read())
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    while records := server.read():
        assert process(records) == {"batchItemFailures": []}


def test_a_racer_without_samples_keeps_an_empty_history_after_finish(server, race):
    api, race_id = race
    api("put_racer", {"racerId": "quiet"}, body={"name": "Quiet"}, claims=ADMIN)
    api("join_race", {"raceId": race_id, "racerId": "quiet"}, claims=ADMIN)
    finish_and_settle(server, api, race_id)
    status, body = api("get_racer_history", {"racerId": "quiet"}, query={"raceId": race_id})
    assert (status, body["races"]) == (200, [{"raceId": race_id, "classId": "hill-climb", "samples": []}])
    assert api("get_racer_results", {"racerId": "quiet"}, query={})[1]["items"][0]["rank"] == 4


def test_racer_rename_reaches_entries_boards_and_class_board(server, race):
    api, race_id = race
    finish_and_settle(server, api, race_id)
    api("put_racer", {"racerId": "a"}, body={"name": "Alice"}, claims=ADMIN)
    assert process(server.read()) == {"batchItemFailures": []}
    assert api("get_racer_results", {"racerId": "a"}, query={})[1]["name"] == "Alice"
    rows = api("get_race_leaderboard", {"raceId": race_id}, query={})[1]["items"]
    assert next(r["name"] for r in rows if r["racerId"] == "a") == "Alice"
    rows = api("get_class_leaderboard", query={})[1]["items"]
    assert next(r["name"] for r in rows if r["racerId"] == "a") == "Alice"
    assert racers.entries_of("a")[0].name == "Alice"


def test_an_old_rename_delivered_again_leaves_the_newest_name(server, race):
    # Given a racer renamed twice, each rename handled
    api, race_id = race
    process(server.read())
    api("put_racer", {"racerId": "a"}, body={"name": "Alice"}, claims=ADMIN)
    first = server.read()
    assert process(first) == {"batchItemFailures": []}
    api("put_racer", {"racerId": "a"}, body={"name": "Ada"}, claims=ADMIN)
    assert process(server.read()) == {"batchItemFailures": []}
    # When the first rename's batch is delivered again
    assert process(first) == {"batchItemFailures": []}
    # Then the board and the entry keep the newest name
    rows = api("get_race_leaderboard", {"raceId": race_id}, query={})[1]["items"]
    assert next(r["name"] for r in rows if r["racerId"] == "a") == "Ada"
    assert racers.entries_of("a")[0].name == "Ada"


def test_a_sample_landing_after_the_freeze_is_counted(server, race):
    # Given a finished, frozen race with a racer who sent nothing in its second minute
    api, race_id = race
    api("put_racer", {"racerId": "d"}, body={"name": "D"}, claims=ADMIN)
    api("join_race", {"raceId": race_id, "racerId": "d"}, claims=ADMIN)
    finish_and_settle(server, api, race_id)
    # When a request that passed the open check writes a new second after the freeze
    from alleycat.storage import entities as e
    written = racers.add_samples(e.Chunk(race_id, "d", 1, "hill-climb", samples={100: Sample(300, 100)}), {100: 552.75})
    assert written.accepted == 1
    for _ in range(3):
        assert process(server.read()) == {"batchItemFailures": []}
    # Then the race is frozen again with it: d's score, rank and history include it
    results = api("get_racer_results", {"racerId": "d"}, query={})[1]["items"][0]
    assert (results["score"], results["lastSecond"], results["rank"]) == (552.75, 100, 4)
    history = api("get_racer_history", {"racerId": "d"}, query={"raceId": race_id})[1]["races"][0]["samples"]
    assert [row[0] for row in history] == [100]


def test_after_compaction_a_packed_second_is_a_duplicate_and_a_new_one_too_late(server, race):
    # Given a finished race whose history is packed
    api, race_id = race
    finish_and_settle(server, api, race_id)
    from alleycat.storage import entities as e
    # When a stalled request re-sends second 5 of racer a and a new second 85 into the sealed chunks
    first = racers.add_samples(e.Chunk(race_id, "a", 0, "hill-climb", samples={5: Sample(1, 1)}), {5: 36.36})
    second = racers.add_samples(e.Chunk(race_id, "a", 2, "hill-climb", samples={65: Sample(1, 1), 85: Sample(1, 1)}),
                               {65: 36.36, 85: 36.36})
    # Then the packed second counts as a duplicate, the new one is refused, and nothing changed
    assert (first.accepted, first.duplicates, first.too_late) == (0, 1, [])
    assert (second.accepted, second.duplicates, second.too_late) == (0, 1, [85])
    assert process(server.read()) == {"batchItemFailures": []}
    assert api("get_racer_results", {"racerId": "a"}, query={})[1]["items"][0]["score"] == 70 * 143.75
    samples = api("get_racer_history", {"racerId": "a"}, query={"raceId": race_id})[1]["races"][0]["samples"]
    assert len(samples) == 70 and samples[5][1:3] == [90, 50]


def test_a_finish_lost_after_the_processors_retries_is_recovered_by_finishing_again(server, race, monkeypatch):
    # Given a finish whose settlement fails on the first delivery and all 5 retries
    api, race_id = race
    process(server.read())
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    finish_records = server.read()
    from alleycat.stream import settlement

    def outage(*_):
        raise RuntimeError("DynamoDB unreachable")

    monkeypatch.setattr(settlement, "publish_ranks", outage)
    for _ in range(6):
        assert process(finish_records)["batchItemFailures"], "the settlement should have failed"
    monkeypatch.undo()
    # and the event source mapping gave up on those records (the failure queue holds only their shard's metadata)
    assert api("get_racer_results", {"racerId": "a"}, query={})[1]["items"][0]["rank"] is None
    # When the admin finishes the race again
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    while records := server.read():
        assert process(records) == {"batchItemFailures": []}
    # Then ranks, bests and the class board appear
    assert board(api, race_id) == EXPECTED
    results = api("get_racer_results", {"racerId": "b"}, query={})[1]["items"][0]
    assert (results["status"], results["rank"]) == ("finished", 3)
    leaderboard = api("get_class_leaderboard", query={})[1]["items"]
    assert [(row["racerId"], row["bestScore"]) for row in leaderboard] == \
        [("a", 70 * 143.75), ("c", 70 * 126.5), ("b", 70 * 109.25)]
    # and once settled, finishing again asks for nothing more
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    assert all(r["dynamodb"]["NewImage"]["type"]["S"] != "Race" for r in server.read())


def test_a_class_rename_reaches_a_race_the_index_does_not_show_yet(server, race, dynamodb_local):
    # Given a race created a moment before its class is renamed
    api, race_id = race
    process(server.read())
    new_race = api("create_race", body={"startsAt": "2026-11-23T10:00:00Z"}, claims=ADMIN)[1]["raceId"]
    api("put_class", body={"name": "Mountain"}, claims=ADMIN)
    # and an inverted index that does not list that race yet (it is eventually consistent)
    from alleycat.storage import dynamo

    from .faults import Faults
    engine = dynamodb_local.client()  # a client the injected faults do not touch

    def lagging(params):
        response = engine.query(**params)
        response["Items"] = [i for i in response["Items"] if i["PK"]["S"] != f"RACE#{new_race}"]
        response["Count"] = len(response["Items"])
        return response

    faults = Faults()
    faults.answer("Query", lagging, when=lambda params: params.get("IndexName") == "inverted")
    try:
        # When the stream is processed
        assert process(server.read()) == {"batchItemFailures": []}
    finally:
        faults.clear()
    # Then both races carry the new name
    assert "Query" in faults.injected
    assert races.get(new_race, consistent=True).className == "Mountain"
    assert races.get(race_id, consistent=True).className == "Mountain"
    assert dynamo.client() is not engine


def test_a_stale_record_delivered_after_the_freeze_changes_nothing_and_writes_nothing(server):
    # Given a race where racer a's first minute arrived in two batches (two records of one chunk)
    api = Api()
    api("put_class", body={"name": "Hill climb"}, claims=ADMIN)
    race_id = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 120}, claims=ADMIN)[1]["raceId"]
    for racer_id in ("a", "b"):
        api("put_racer", {"racerId": racer_id}, body={"name": racer_id.upper()}, claims=ADMIN)
        api("join_race", {"raceId": race_id, "racerId": racer_id}, claims=ADMIN)
    post = lambda seconds, racer, cadence: api("post_telemetry", {"raceId": race_id}, claims=ADMIN, body={
        "samples": [{"racerId": racer, "second": s, "cadence": cadence, "resistance": 50} for s in seconds]})
    post(range(0, 30), "a", 90)
    early = server.read()  # chunk 0 of a with 30 seconds: a record that will arrive late
    post(range(30, 60), "a", 90)
    post(range(0, 60), "b", 80)
    process(early)
    finish_and_settle(server, api, race_id)
    settled = board(api, race_id)
    assert settled == {"a": (60 * 143.75, 59, 1), "b": (60 * 132.25, 59, 2)}
    # When the early record of a is delivered again, after the freeze (a redelivery out of order)
    from .faults import Writes
    writes = Writes()
    try:
        late = [r for r in early if r["dynamodb"]["NewImage"]["type"]["S"] == "Chunk"]
        assert process(late) == {"batchItemFailures": []}
    finally:
        writes.close()
    # Then scores, ranks and bests are unchanged, and nothing was written: the entry read shows
    # it ranked, and its totals equal the stored samples' (no re-publish)
    assert writes.calls == []
    assert board(api, race_id) == settled
    assert api("get_racer_results", {"racerId": "a"}, query={})[1]["items"][0]["score"] == 60 * 143.75
    assert [(r["racerId"], r["bestScore"]) for r in api("get_class_leaderboard", query={})[1]["items"]] == \
        [("a", 60 * 143.75), ("b", 60 * 132.25)]


def test_a_late_sample_re_ranks_only_the_entries_whose_place_moved(server, race):
    # Given a settled race of a > c > b and a quiet racer d
    api, race_id = race
    api("put_racer", {"racerId": "d"}, body={"name": "D"}, claims=ADMIN)
    api("join_race", {"raceId": race_id, "racerId": "d"}, claims=ADMIN)
    finish_and_settle(server, api, race_id)
    # When a sample of d lands after the freeze in a minute d never wrote (enough to pass b, not c)
    from alleycat.storage import entities as e

    from .faults import Writes
    racers.add_samples(e.Chunk(race_id, "d", 1, "hill-climb", samples={100: Sample(300, 100)}), {100: 552.75})
    writes = Writes()
    try:
        for _ in range(3):
            assert process(server.read()) == {"batchItemFailures": []}
    finally:
        writes.close()
    # Then d counts it exactly, and only d's own items and its rank change
    results = api("get_racer_results", {"racerId": "d"}, query={})[1]["items"][0]
    assert (results["score"], results["rank"]) == (552.75, 4)
    ranked = [params["Key"]["PK"]["S"] for operation, params in writes.calls
              if operation == "UpdateItem" and "#rank" in params.get("ExpressionAttributeNames", {})]
    assert ranked == []  # d stays 4th: nobody's place moved
    assert len(writes.calls) <= 8


def test_a_bike_posting_every_second_gets_a_live_board_and_one_entry_write_per_chunk(server):
    # Given a racer whose bike posts one sample a second, each batch processed on its own
    api = Api()
    api("put_class", body={"name": "Hill climb"}, claims=ADMIN)
    race_id = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 120}, claims=ADMIN)[1]["raceId"]
    api("put_racer", {"racerId": "a"}, body={"name": "A"}, claims=ADMIN)
    api("join_race", {"raceId": race_id, "racerId": "a"}, claims=ADMIN)
    process(server.read())
    from alleycat.storage import keys

    from .faults import Writes
    writes = Writes()
    try:
        for second in range(65):
            api("post_telemetry", {"raceId": race_id}, claims=ADMIN,
                body={"samples": [{"racerId": "a", "second": second, "cadence": 90, "resistance": 50}]})
            assert process(server.read()) == {"batchItemFailures": []}
            # Then after every second the board shows every accepted second
            assert board(api, race_id) == {"a": ((second + 1) * 143.75, second, 1)}
    finally:
        writes.close()
    # and the entry was written only when a chunk was done (seconds 29 and 59), not every second
    entry_key = keys.ENTRY.key({"raceId": race_id, "racerId": "a"})
    entry_writes = [params for operation, params in writes.calls
                    if params.get("Key") == {name: {"S": value} for name, value in entry_key.items()}]
    assert len(entry_writes) == 2
    result = api("get_racer_results", {"racerId": "a"}, query={})[1]["items"][0]
    assert (result["score"], result["lastSecond"]) == (60 * 143.75, 59)


def test_a_chunk_done_in_an_earlier_batch_is_read_back_for_the_board(server, race):
    # Given racers whose first 70 seconds were processed (chunk 2 of 30-second chunks still filling)
    api, race_id = race
    process(server.read())
    # When a's next second starts a new chunk and its batch holds only that chunk
    api("post_telemetry", {"raceId": race_id}, claims=ADMIN,
        body={"samples": [{"racerId": "a", "second": 95, "cadence": 90, "resistance": 50}]})
    assert process(server.read()) == {"batchItemFailures": []}
    # Then the board still counts chunk 2 (read from the stored chunk) and the entry now holds it
    assert board(api, race_id)["a"] == (71 * 143.75, 95, 1)
    result = api("get_racer_results", {"racerId": "a"}, query={})[1]["items"][0]
    assert (result["score"], result["lastSecond"]) == (70 * 143.75, 69)


@pytest.mark.parametrize("posts, last", [
    ([[*range(0, 29), *range(30, 60)], [29]], 59),      # a retried second 29, after 30-59 went through
    ([list(range(1, 120)), [0]], 119),                   # second 0 arrives last
    ([list(range(270, 300)), list(range(0, 270))], 299),  # the newest chunk first, the rest after
], ids=["late-second-29", "late-second-0", "newest-chunk-first"])
def test_a_batch_of_late_seconds_keeps_the_racers_newest_chunk_on_the_board(server, posts, last):
    # Given a racer in a 300-second race
    api = Api()
    api("put_class", body={"name": "Hill climb"}, claims=ADMIN)
    race_id = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN)[1]["raceId"]
    api("put_racer", {"racerId": "a"}, body={"name": "A"}, claims=ADMIN)
    api("join_race", {"raceId": race_id, "racerId": "a"}, claims=ADMIN)
    process(server.read())
    # When the seconds come in two posts, the later one holding only seconds before the newest,
    # each post's records handled in a batch of its own
    for seconds in posts:
        samples = [{"racerId": "a", "second": s, "cadence": 60, "resistance": 50} for s in seconds]
        assert api("post_telemetry", {"raceId": race_id}, body={"samples": samples}, claims=ADMIN)[1]["accepted"] == len(seconds)
        assert process(server.read()) == {"batchItemFailures": []}
    # Then the board counts every second, the newest chunk's too
    sent = sum(map(len, posts))
    assert board(api, race_id) == {"a": (sent * 109.25, last, 1)}


def test_accepted_samples_are_counted_from_the_batch_once():
    # Given chunk records: a new chunk with two seconds, a chunk that gained one, a race record
    import importlib.util

    from local.handlers import ROOT

    spec = importlib.util.spec_from_file_location("stream_processor_app", ROOT / "functions" / "stream_processor" / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    chunk = lambda *seconds: {"type": {"S": "Chunk"}, **{f"s{s}": {"L": []} for s in seconds}}
    records = [{"dynamodb": {"NewImage": chunk(0, 1)}},
               {"dynamodb": {"NewImage": chunk(30, 31, 32), "OldImage": chunk(30, 31)}},
               {"dynamodb": {"NewImage": {"type": {"S": "Race"}, "s1": {"S": "x"}}}}]
    # Then the seconds each chunk record added are the samples accepted
    assert module.samples_accepted(records) == 3


# --- the board pushed to viewers (alleycat.edge.push) ---------------------------------------------------


def test_the_processor_pushes_no_board_the_races_ticker_does(server, race):
    # When a batch of telemetry records is handled / Then nothing went out from the stream (flows.ticking
    # pushes boards)
    recorder = Recorder()
    react(server.read(), recorder)
    assert recorder.sent == []


def test_the_stream_reads_no_board_for_viewers(server, race, monkeypatch):
    api, race_id = race
    from alleycat.storage import races

    monkeypatch.delenv(EVENT_API_URL, raising=False)
    settings.reset()
    reads = []
    monkeypatch.setattr(races, "with_boards", lambda *a, **k: reads.append(a))
    assert process(server.read()) == {"batchItemFailures": []}
    assert reads == []


class Recorder:
    """The push port as a test sees it: what would be published, per channel, with no socket (read back as
    a viewer reads it)."""

    def __init__(self):
        self.sent: list[tuple[str, dict]] = []

    def publish(self, channel, events):
        from alleycat.edge import push

        self.sent += [(channel, push.decoded(event)) for event in events]


def react(records, publisher):
    """The stream's work for ``records``, done in this process, while counting its DynamoDB requests."""
    from alleycat.stream.plan import Plan
    from alleycat.stream.reactions import react as react_to

    from .faults import Writes

    plan, unreadable = Plan.of(records)
    requests = Writes(operations=None)
    try:
        assert unreadable == [] and react_to(plan, publisher) == []
    finally:
        requests.close()
    return requests.calls


def http_rows(api, race_id, named: bool) -> list[list]:
    """The route's rows as a board message (v4) carries them: ``named`` with ids and names, else by key."""
    from alleycat.edge import push

    def extras(row):
        return [row["equipment"], row["review"]] if row["review"] else [row["equipment"]] if row["equipment"] != "bike" else []

    return [[row["rank"], [row["racerId"], row["name"]] if named else push.key(row["racerId"]), row["score"], row["lastSecond"],
             *extras(row)] for row in api("get_race_leaderboard", {"raceId": race_id}, query={"limit": "1000"})[1]["items"]]


def test_a_settlement_is_pushed_by_the_stream_at_once(server, race):
    # (the race's ticker sends it again at its next tick: a race clock a test holds still may not reach it)
    api, race_id = race
    process(server.read())
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    recorder = Recorder()
    react(server.read(), recorder)
    assert [message["status"] for _, message in recorder.sent] == ["finished"] and races.get(race_id).settled


@pytest.mark.parametrize("finished", [False, True], ids=["open", "settled"])
def test_a_review_decision_is_pushed_and_no_push_fails(server, race, monkeypatch, finished):
    # Issue 51: every decision logged "board push failed ... TypeError('cannot store set')"
    from alleycat.flows import pushing

    api, race_id = race
    process(server.read())
    if finished:
        api("finish_race", {"raceId": race_id}, claims=ADMIN)
        process(server.read())
    failures = []
    monkeypatch.setattr(pushing, "_failed", lambda message, race_id, error: failures.append((message, repr(error))))
    # When an admin disqualifies a ride and the stream handles the decision
    assert api("review_ride", {"raceId": race_id, "racerId": "a"}, body={"decision": "disqualify"}, claims=ADMIN)[0] == 200
    recorder = Recorder()
    react(server.read(), recorder)
    # Then no push failed; a settled race's viewers are told to read its final board (an open race's board
    # goes with its ticker's next message)
    assert failures == []
    assert [(channel, message["status"]) for channel, message in recorder.sent] == (
        [(f"/races/{race_id}", "finished")] if finished else [])


# --- the race's ticker (alleycat.flows.ticking) on DynamoDB Local, on a clock the test moves ---------------


def test_the_ticker_pushes_the_board_a_race_second_then_the_settled_race_once(server, race, monkeypatch):
    from alleycat import clock
    from alleycat.flows import ticking
    from alleycat.rules import ticking as rules

    api, race_id = race
    process(server.read())
    named, keyed = http_rows(api, race_id, True), http_rows(api, race_id, False)
    start = clock.race_start("2026-11-22T10:00:00Z")
    now = [rules.tick_at(start, 117) - 0.25]

    def sleep(seconds):  # the test's clock; at second 122 the race is finished and settled (the finisher, the stream)
        now[0] += seconds
        if rules.due(start, now[0]) == 122 and not races.get(race_id).settled:
            api("finish_race", {"raceId": race_id}, claims=ADMIN)
            process(server.read())

    monkeypatch.setattr(clock, "now", lambda: now[0])
    monkeypatch.setattr(clock, "sleep", sleep)
    recorder = Recorder()
    # When the race's ticker runs from its second 117
    assert ticking.tick(race_id, recorder, "arn:aws:lambda:us-east-1:123456789012:function:tick", "me") == "finished"
    # Then its last three seconds went, the first with every row as the route reads them, and, nothing
    # changing after the end, nothing until the settled race's message, the last one
    assert [(channel, message["status"]) for channel, message in recorder.sent] == (
        [(f"/races/{race_id}", "open")] * 3 + [(f"/races/{race_id}", "finished")])
    # the top rows: all three, named in the first message, by key after
    assert recorder.sent[0][1]["rows"] == named and recorder.sent[1][1]["rows"] == keyed
    # and a ticker started again for the race (a redelivered invocation) finds its seconds claimed
    assert ticking.tick(race_id, recorder, "arn:aws:lambda:us-east-1:123456789012:function:tick", "again") == "duplicate"
    assert len(recorder.sent) == 4


def test_a_race_seconds_claim_is_one_tickers_and_a_retry_of_its_own_claim_is_still_its(server):
    from alleycat.storage import tickers

    assert tickers.claim("R1", 3, "a") and tickers.claim("R1", 3, "a")  # a retried write of the same claim
    assert not tickers.claim("R1", 3, "b") and not tickers.claim("R1", 2, "a")  # taken; gone by
    assert tickers.claim("R1", 4, "b") and not tickers.claim("R1", 4, "a")


def test_with_the_fan_in_on_the_board_is_the_slice_boards_rows_and_the_settlement_the_blocks(
        server, monkeypatch, request_counter):
    monkeypatch.setenv(settings.FAN_IN, "on")
    settings.reset()
    server.writes_history = False  # the writer's batches are the test's
    api = Api()
    api("put_class", body={"name": "Hill climb"}, claims=ADMIN)
    race_id = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 120}, claims=ADMIN)[1]["raceId"]
    for racer_id in ("a", "b", "c", "d"):
        api("put_racer", {"racerId": racer_id}, body={"name": racer_id.upper()}, claims=ADMIN)
        api("join_race", {"raceId": race_id, "racerId": racer_id}, claims=ADMIN)
    # Given the joins rostered by the stream, then seconds counted through the blocks (no chunk)
    assert process(server.read()) == {"batchItemFailures": []}
    samples = [{"racerId": r, "second": s, "cadence": c, "resistance": 50}
               for r, c in (("a", 90), ("b", 60), ("c", 75)) for s in range(0, 70)]
    assert api("post_telemetry", {"raceId": race_id}, body={"samples": samples}, claims=ADMIN)[1]["accepted"] == 210
    assert [chunk.samples for chunk in racers.chunks_of(race_id, "a")] == [{}]  # the join's empty chunk alone
    # When the board is read / Then it ranks the slice boards' rows, names from the rosters, d joined at 0
    request_counter.clear()
    assert board(api, race_id) == {**EXPECTED, "d": (0, None, 4)}
    assert request_counter == ["Query"]
    names = {row["racerId"]: row["name"] for row in api("get_race_leaderboard", {"raceId": race_id})[1]["items"]}
    assert names == {"a": "A", "b": "B", "c": "C", "d": "D"}
    # When the history writer takes the blocks' records, twice (a redelivery) / Then each (racer, chunk) is one write
    # of the blocks' first values, and the second delivery writes nothing
    blocks = server.read()
    shards = races.board_items(race_id, consistent=True).boards
    request_counter.clear()
    assert write_history(blocks) == {"batchItemFailures": []}
    assert request_counter.count("UpdateItem") == 3 * 3  # 3 racers, 3 chunks (0-29, 30-59, 60-69)
    written = [chunk.samples for chunk in racers.chunks_of(race_id, "a")]
    assert write_history(blocks) == {"batchItemFailures": []}
    assert [chunk.samples for chunk in racers.chunks_of(race_id, "a")] == written
    history = api("get_racer_history", {"racerId": "a"}, query={"raceId": race_id})[1]["races"][0]["samples"]
    assert (len(history), history[0], history[-1][0]) == (70, [0, 90, 50, 143.75, None, None], 69)
    # and the stream processor scores those chunks: an open race's results (its chunks done), no board shard written
    assert process(server.read()) == {"batchItemFailures": []}
    results = api("get_racer_results", {"racerId": "a"}, query={})[1]["items"][0]
    assert (results["status"], results["score"], results["lastSecond"]) == ("open", 60 * 143.75, 59)
    assert races.board_items(race_id, consistent=True).boards == shards
    assert board(api, race_id) == {**EXPECTED, "d": (0, None, 4)}
    # When the race is finished and settled / Then it ranks, packs and replays the blocks' first values, once
    finish_and_settle(server, api, race_id)
    # and the writer's records delivered again after the settlement change nothing (a finished race takes nothing)
    request_counter.clear()
    assert write_history(blocks) == {"batchItemFailures": []}
    assert request_counter == ["Query"]
    assert board(api, race_id) == {**EXPECTED, "d": (0, None, 4)}
    results = api("get_racer_results", {"racerId": "b"}, query={})[1]["items"][0]
    assert (results["status"], results["rank"], results["score"]) == ("finished", 3, 70 * 109.25)
    history = api("get_racer_history", {"racerId": "a"}, query={"raceId": race_id})[1]["races"][0]["samples"]
    assert (len(history), history[0], history[-1][0]) == (70, [0, 90, 50, 143.75, None, None], 69)
    replay = api("get_race_replay", {"raceId": race_id})[1]
    assert [row["racerId"] for row in replay["racers"]] == ["a", "c", "b", "d"]
    assert replay["scores"][0][69] == round(70 * 143.75, 1)
