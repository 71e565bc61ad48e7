"""The stream handler fed with real records read from DynamoDB Local's stream."""

import asyncio
import copy
import json

import pytest

from alleycat import settings
from alleycat.rules.samples import Sample
from alleycat.settings import EVENT_API_URL
from alleycat.storage import classes, racers, races
from alleycat.storage import entities as e

from .conftest import ADMIN, Api, process


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


@pytest.fixture
def event_api(monkeypatch):
    """The local stand-in Event API as EVENT_API_URL, checking SigV4 with the functions' credentials,
    and a subscriber on the races namespace (``received()``: the messages so far)."""
    import os

    from alleycat.edge import push
    from local.eventapi import EventApi
    from tests.e2e.test_event_api import DocClient

    api = EventApi(access_key=os.environ["AWS_ACCESS_KEY_ID"], secret_key=os.environ["AWS_SECRET_ACCESS_KEY"],
                   region=os.environ["AWS_DEFAULT_REGION"]).start()
    monkeypatch.setenv(EVENT_API_URL, api.http_url)
    settings.reset()
    loop = asyncio.new_event_loop()
    client = DocClient(api)
    loop.run_until_complete(client.connect())
    assert loop.run_until_complete(client.subscribe("all", "/races/*"))["type"] == "subscribe_success"

    def received(wait=1.0):
        messages = []
        while True:
            try:
                messages.append(push.decoded(json.loads(loop.run_until_complete(asyncio.wait_for(client.receive(), wait))["event"])))
            except TimeoutError:
                return messages
            wait = 0.2

    api.received = received
    yield api
    loop.run_until_complete(client.close())
    loop.close()
    api.stop()


def test_the_processor_pushes_one_message_per_race_with_its_board(server, race, event_api):
    api, race_id = race
    # When a batch of telemetry records is handled
    assert process(server.read()) == {"batchItemFailures": []}
    # Then one message went out on the race's channel, with the board as stored
    [message] = event_api.received()
    assert (message["raceId"], message["status"], message["racers"], message["more"]) == (race_id, "open", 3, 0)
    assert message["rows"] == [[1, "a", 70 * 143.75, 69, "trainer", None, "A"], [2, "c", 70 * 126.5, 69, "trainer", None, "C"],
                               [3, "b", 70 * 109.25, 69, "trainer", None, "B"]]
    assert event_api.stats["publish_requests"] == 1
    # When the race is finished / Then viewers are told, to read the final board
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    assert process(server.read()) == {"batchItemFailures": []}
    assert [m["status"] for m in event_api.received()] == ["finished"]


def test_a_publish_that_fails_never_fails_the_batch(server, race, monkeypatch):
    api, race_id = race

    # Given an Event API endpoint that does not answer
    monkeypatch.setenv(EVENT_API_URL, "http://127.0.0.1:9/event")
    settings.reset()
    # When the batch is handled / Then every record succeeds and the board is written
    assert process(server.read()) == {"batchItemFailures": []}
    assert board(api, race_id) == EXPECTED


def test_without_the_endpoint_nothing_is_published_nor_read(server, race, monkeypatch):
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


def react(records, publisher, later=None):
    """The stream's work for ``records``, done in this process, while counting its DynamoDB requests."""
    from alleycat.stream.plan import Plan
    from alleycat.stream.reactions import react as react_to

    from .faults import Writes

    plan, unreadable = Plan.of(records)
    requests = Writes(operations=None)
    try:
        assert unreadable == [] and react_to(plan, publisher, later) == []
    finally:
        requests.close()
    return requests.calls


def board_reads(requests, race_id) -> int:
    """Queries of the race and its board shards (its partition up to its replay)."""
    return sum(1 for operation, params in requests if operation == "Query"
               and params["KeyConditionExpression"] == "PK = :partition AND SK < :replay"
               and params["ExpressionAttributeValues"][":partition"] == {"S": f"RACE#{race_id}"})


def http_rows(api, race_id) -> list[list]:
    return [[row["rank"], row["racerId"], row["score"], row["lastSecond"], row["equipment"], row["review"], row["name"]]
            for row in api("get_race_leaderboard", {"raceId": race_id}, query={"limit": "1000"})[1]["items"]]


def test_a_race_with_every_shard_written_is_pushed_as_written_without_reading_its_board(server):
    from alleycat.storage.entities import BOARD_SHARDS, RaceBoard

    # Given a race with a racer on every board shard, each sending samples
    api = Api()
    api("put_class", body={"name": "Hill climb"}, claims=ADMIN)
    race_id = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 120}, claims=ADMIN)[1]["raceId"]
    by_shard = {}
    for n in range(400):
        by_shard.setdefault(RaceBoard.shard_of(f"r{n}"), f"r{n}")
    assert len(by_shard) == BOARD_SHARDS
    for racer_id in by_shard.values():
        api("put_racer", {"racerId": racer_id}, body={"name": racer_id.upper()}, claims=ADMIN)
        api("join_race", {"raceId": race_id, "racerId": racer_id}, claims=ADMIN)
    process(server.read())
    samples = [{"racerId": racer_id, "second": s, "cadence": 40 + shard, "resistance": 50}
               for shard, racer_id in by_shard.items() for s in range(3)]
    api("post_telemetry", {"raceId": race_id}, body={"samples": samples}, claims=ADMIN)
    # When the batch is handled with a publisher the test holds
    recorder = Recorder()
    requests = react(server.read(), recorder)
    # Then one message went to the race's channel: the whole board as the leaderboard route reads it
    [(channel, message)] = recorder.sent
    assert channel == f"/races/{race_id}"
    assert message["rows"][:10] == http_rows(api, race_id)[:10]
    assert (message["racers"], message["status"], message["more"]) == (BOARD_SHARDS, "open", 0)
    # and the board was built from the shards as written: the race's partition was not read back
    assert board_reads(requests, race_id) == 0
    assert sum(1 for operation, _ in requests if operation == "UpdateItem") >= BOARD_SHARDS


def test_a_small_race_is_pushed_after_one_read_of_its_board(server, race):
    api, race_id = race
    recorder = Recorder()
    requests = react(server.read(), recorder)
    [(_, message)] = recorder.sent
    assert message["rows"] == http_rows(api, race_id)
    assert board_reads(requests, race_id) == 1  # for the shards this batch did not write


def test_a_settled_race_is_pushed_as_finished(server, race):
    api, race_id = race
    process(server.read())
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    recorder = Recorder()
    react(server.read(), recorder)
    assert [(channel, message["status"]) for channel, message in recorder.sent] == [(f"/races/{race_id}", "finished")]


def test_a_board_read_with_its_race_carries_the_races_status(server, race):
    # Given a race finished before its last telemetry records were handled
    api, race_id = race
    api("finish_race", {"raceId": race_id}, claims=ADMIN)
    recorder = Recorder()
    # When those records and the finish's are handled together
    react(server.read(), recorder)
    # Then the board read for the push says finished (viewers read the final board), as the settlement's message does
    assert [message["status"] for _, message in recorder.sent] == ["finished", "finished"]


def test_with_a_board_publisher_the_batch_asks_it_for_the_message_and_it_sends_the_board(server, race, monkeypatch):
    from alleycat.flows import pushing

    api, race_id = race
    recorder, asked = Recorder(), []

    def later(race_id, at):
        asked.append((race_id, at))

    # The race's batch asks the board publisher for a message, and sends nothing itself
    requests = react(server.read(), recorder, later)
    [(asked_race, at)] = asked
    assert asked_race == race_id and recorder.sent == [] and board_reads(requests, race_id) == 0
    # A batch right after it asks for nothing: the message asked for will carry it
    api("post_telemetry", {"raceId": race_id}, body={"samples": [{"racerId": "b", "second": 70, "cadence": 99,
                                                                   "resistance": 50}]}, claims=ADMIN)
    react(server.read(), recorder, later)
    assert len(asked) == 1
    # When the board publisher runs at that time (its wait recorded, not waited)
    waits = []
    monkeypatch.setattr(pushing, "sleep_until", waits.append)
    monkeypatch.setattr(pushing, "now_ms", lambda: at)
    assert pushing.push_later(recorder, race_id, at) is True
    # Then it sent the board as the route reads it: every racer, b at its new second
    [(channel, message)] = recorder.sent
    assert waits == [at] and channel == f"/races/{race_id}"
    assert message["rows"] == http_rows(api, race_id) and [row[1:4:2] for row in message["rows"]][-1] == ["b", 70]
    # and Lambda delivering the invocation twice sends nothing more
    assert pushing.push_later(recorder, race_id, at) is False and len(recorder.sent) == 1


def test_the_board_publisher_sends_nothing_once_the_race_is_finished(server, race, monkeypatch):
    # The page takes a finished status to mean the final board: only the settlement's message may say so
    from alleycat.flows import pushing

    api, race_id = race
    asked = []
    react(server.read(), Recorder(), lambda race_id, at: asked.append(at))
    [at] = asked
    api("finish_race", {"raceId": race_id}, claims=ADMIN)  # finished, its settlement not run yet
    monkeypatch.setattr(pushing, "sleep_until", lambda at: None)
    monkeypatch.setattr(pushing, "now_ms", lambda: at + 1000)
    recorder = Recorder()
    assert pushing.push_later(recorder, race_id, at) is False and recorder.sent == []


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
    # When an admin disqualifies a ride and the stream handles the decision, with a board publisher to ask
    assert api("review_ride", {"raceId": race_id, "racerId": "a"}, body={"decision": "disqualify"}, claims=ADMIN)[0] == 200
    recorder, asked = Recorder(), []
    react(server.read(), recorder, lambda race_id, at: asked.append(race_id))
    # Then no push failed, and viewers hear of it: an open race's next board message is asked for (the
    # decision's shard noted on the race's gate); a settled race's viewers are told to read its final board
    assert failures == []
    if finished:
        assert (asked, [(channel, message["status"]) for channel, message in recorder.sent]) == (
            [], [(f"/races/{race_id}", "finished")])
    else:
        assert (asked, recorder.sent) == ([race_id], [])
        assert pushing.take(race_id, now=pushing.now_ms() + 10_000) == {e.RaceBoard.shard_of("a")}
