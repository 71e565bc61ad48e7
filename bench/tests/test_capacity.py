"""The partition-capacity model (bench/capacity.py) on a recorded ledger's shape: ids shifted, board writes by S,
today's walls — no DynamoDB."""

import pytest

from bench import capacity as c

RACE, RIDERS = "01RACE", [f"{n:08x}-0000-4000-8000-000000000000" for n in range(10)]
BOARD = c.Board(shards=20, shard_base=134, racing=67.8, joined=60, race_other=234)


def recording(seconds=10):
    """10 riders for ``seconds``, as the real handlers' ledger has it: a post reads its gate copy and entry, writes its
    chunk; one stream invocation a second reads entries and chunks and writes the board shards it touched."""
    requests = []
    for s in range(seconds):
        for n, rider in enumerate(RIDERS):
            requests += [c.Request("post", "BatchGetItem", f"GATE#{RACE}#{n}", rcu=1, second=s),
                         c.Request("post", "BatchGetItem", f"RACER#{rider}", rcu=1, second=s),
                         c.Request("post", "UpdateItem", f"RACER#{rider}", wcu=1, item="HIST", second=s),
                         c.Request("stream", "BatchGetItem", f"RACER#{rider}", rcu=2, second=s)]
        requests += [c.Request("stream", "UpdateItem", f"RACE#{RACE}", wcu=1, item=f"BOARD#{RACE}#{k}", second=s)
                     for k in range(9)]
    # a join: its entry and first chunk, the check of its gate copy, the entry's index entry in the race's index partition
    for n, rider in enumerate(RIDERS):
        requests += [c.Request("join", "BatchGetItem", f"GATE#{RACE}#{n}", rcu=1),
                     c.Request("join", "TransactWriteItems", f"RACER#{rider}", wcu=4, item=f"RACE#{RACE}"),
                     c.Request("join", "TransactWriteItems", f"GATE#{RACE}#{n}", wcu=2, item=f"GATE#{RACE}"),
                     c.Request("join", "TransactWriteItems", f"RACE#{RACE}", wcu=1, index=True),
                     c.Request("roster", "TransactWriteItems", f"RACER#{rider}", wcu=2, item=f"RACE#{RACE}")]
    # the stream's one invocation on the 10 joins: their roster, the race's count, the race read, the card
    requests += [c.Request("roster", "TransactWriteItems", f"RACE#{RACE}", wcu=2, item=f"JOINED#{RACE}#4"),
                 c.Request("roster", "TransactWriteItems", f"RACE#{RACE}", wcu=2, item="CLASS#hill"),
                 c.Request("roster", "TransactWriteItems", "CLASS#hill", wcu=1, index=True),
                 c.Request("roster", "Query", f"RACE#{RACE}", rcu=1),
                 c.Request("roster", "UpdateItem", "RACES#open", wcu=1)]
    return c.Recording(tuple(requests), RACE, frozenset(RIDERS), rider_seconds=10 * seconds, invocations=seconds,
                       joins=10, views=0, board=BOARD, post_ms=14, join_ms=30, stream_ms_per_record=0.8,
                       stream_ms_per_invocation=10, copies=(("GATE#<race>#<n>", 10),),
                       roster=c.Roster(150, 45.0), roster_invocations=1)


def test_ids_are_named_by_what_they_belong_to():
    rec = recording(1)
    assert c.family(f"RACER#{RIDERS[3]}", RACE, rec.racer_ids) == "RACER#<racer>"
    assert c.family(f"GATE#{RACE}#7", RACE, rec.racer_ids) == "GATE#<race>#<n>"
    assert c.family(f"HIST#{RACE}#{RIDERS[1]}#001", RACE, rec.racer_ids) == "HIST#<race>#<racer>#001"
    assert [c.scope(n) for n in ("RACER#<racer>", "GATE#<race>#<n>", "RACES#open")] == ["racer", "race", "shared"]


def test_a_riders_partition_keeps_its_load_and_a_races_grows_with_its_riders():
    rec, quotas = recording(), c.Quotas()
    small, large = (c.evaluate(rec, quotas, c.Scenario(1, n, shards=4)) for n in (1000, 10_000))
    assert small.partitions["RACER#<racer>"] == large.partitions["RACER#<racer>"]
    assert small.partitions["RACER#<racer>"]["wcu"] == pytest.approx(1) and small.partitions["RACER#<racer>"]["rcu"] == 3
    # every rider reads one of the race's 10 gate copies: R / 10 each
    assert small.partitions["GATE#<race>#<n>"]["rcu"] == pytest.approx(100)
    assert large.partitions["GATE#<race>#<n>"]["rcu"] == pytest.approx(1000)
    assert large.table_rcu == pytest.approx(10_000 * 4 + c.board_read_rcu(BOARD, 10_000))


def test_board_writes_grow_with_the_stream_shards_and_the_boards_size():
    rec, quotas = recording(), c.Quotas()
    board = lambda riders, shards: c.evaluate(rec, quotas, c.Scenario(1, riders, shards=shards)).partitions["RACE#<race>"]["wcu"]
    # a full race's invocation writes its 20 shards, ~4 WCU each (a 3.3 KB shard): ~80 x S
    assert 75 < board(1000, 1) < 82 and board(1000, 8) == pytest.approx(8 * board(1000, 1), rel=0.01)
    assert board(3000, 4) > 2.5 * board(1000, 4)  # each shard write is its whole item: ~3x the racers
    # the model against the recording it was fed: 10 racers touch ~8.0 of 20 shards, each 1 WCU
    assert c.board_writes(BOARD, 10, 10) == pytest.approx(20 * (1 - 0.95 ** 10))


def test_the_shard_count_follows_the_tables_throughput():
    rec, quotas = recording(), c.Quotas()
    assert c.evaluate(rec, quotas, c.Scenario(1, 1000)).shards == 4  # a new table's 4,000 WCU
    many = c.evaluate(rec, quotas, c.Scenario(20, 1000))
    assert many.shards >= many.table_rcu / 3000 and many.shards >= 20


def test_todays_walls_first_the_telemetry_throttle_then_the_board_partition():
    rec, quotas = recording(), c.Quotas()
    rows = c.walls(rec, quotas, c.one_race)
    assert rows[0]["limit"] == "telemetry route throttle" and rows[0]["riders"] == 2001
    board = next(r for r in rows if r["limit"] == "a partition's writes: the race's board partition")
    assert 2500 < board["riders"] < 4000
    assert c.walls(rec, quotas, c.races_of(1000))[0]["riders"] == 2001  # 2,000 riders in all races together


def test_a_mass_start_is_held_by_the_join_route_and_the_races_index_partition_not_by_a_hot_item():
    rec = recording()
    # the route lets 10,000 joins through in 10 s; the race's index partition (1 WCU a join) holds them under 80 %
    fast = c.join_phase(rec, c.Quotas(join_route_rps=1000), 10_000)
    assert fast["by"] == "partition index RACE#<race> at 80% of its limit"
    assert fast["joins_per_second"] == pytest.approx(800, rel=0.01) and fast["seconds"] == pytest.approx(12.5, rel=0.01)
    # under a slower throttle the throttle holds, every partition far from its limit: the race's item and rosters
    # take a few units a second per stream shard, the joins' own partitions theirs
    slow = c.join_phase(rec, c.Quotas(join_route_rps=500), 10_000)
    assert (slow["by"], slow["seconds"]) == ("join route throttle", 20.0)
    assert slow["partitions"]["RACE#<race>"]["wcu"] < 100 and slow["partitions"]["GATE#<race>#<n>"]["wcu"] == 100
    assert slow["partitions"]["RACER#<racer>"] == {"wcu": 6, "rcu": 0}


def test_a_roster_item_costs_its_size_twice_one_per_98_racers():
    rec = recording()
    assert c.roster_item_wcu(rec, 10) == 2 * 1  # 150 + 450 bytes: 1 KB, transactional
    assert c.roster_item_wcu(rec, 98) == 2 * 5  # 4.5 KB
    assert c.roster_item_wcu(rec, 99) == 2 * 2 * 3  # two items of ~50 racers
