"""The fan-in's partition model (bench/capacity_fanin.py) on measured-like sizes — no DynamoDB."""

import pytest

from bench import capacity_fanin as f
from bench.capacity import Request

MEASURED = f.FanIn(racers=1000, rider_seconds=5000, block_base=150, block_per_racer=15.5, board_base=200,
                   board_per_racer=10.2, read_base=5000, read_per_racer=75, entry_rcu=1.0, gate_rcu=1.0, tick_wcu=1.0,
                   tick_rcu=1.0, record_bytes=310, consumer_cpu_ms_per_record=0.36, consumer_waves=3.8, memory_mb=1024,
                   block_index_wcu=1.0)


def test_a_slices_second_pays_each_updates_size_after_it():
    # 60 racers of 15.5 bytes: one update of 1,080 bytes (2 WCU), or three of 460, 770, 1,080 (1 + 1 + 2)
    assert f.block_wcu(MEASURED, 60, 1) == 2
    assert f.block_wcu(MEASURED, 60, 3) == 4


SECOND = f.Sizing(window_s=1)  # a batch a lane a second: a 1-s window (a polled iterator's base rate alike)


def test_a_slice_is_written_once_a_batch_of_its_lane():
    small = f.placement(1, 10_000, 1.0, 82, 10, 100)
    big = f.placement(1, 10_000, 1.0, 82, 10, 1000)
    assert small["lane_records"] == 625 and small["updates_max"] == 7  # ⌈625 / 100⌉ batches, each touching the slice
    assert big["updates_max"] == 1


def test_pushed_records_with_no_window_are_batched_as_fast_as_the_lane_runs():
    # 200 records a second, 0.5 ms each (0.1 s), 20 ms a batch's round trips: back to back 45 a second, but one a push
    assert f.lane_batches(200, 1000, (True, 0.0, 70.0, 0.02, 0.0005)) == pytest.approx(1000 / 70)
    assert f.lane_batches(200, 1000, (True, 0.0, 10.0, 0.02, 0.0005)) == pytest.approx(45)
    assert f.lane_batches(200, 1000, (True, 1.0, 70.0, 0.02, 0.0005)) == 1 == f.lane_batches(200, 1000)
    pushed = f.second(MEASURED, f.Sizing(), 1, 10_000)
    assert not pushed["fits"] and pushed["slice_updates_a_second"]["hottest"] > 7  # worse than batches of 100


def test_a_10000_rider_race_has_16_keys_and_the_plan_gives_each_hot_group_a_shard():
    planned, shards, where = f.shards_needed(MEASURED, SECOND, 1, 10_000, 1.0)
    # ⌈10,000 / 600⌉ even shards put two groups of 625 records/s on one shard (1,250 > 1,000): each such shard is
    # split between its keys
    assert planned == 17 and shards == planned + where["splits"] and where["splits"] > 0
    assert where["keys_on_hottest_shard"] == 1 and where["shard_records"] == 625 and where["lanes_busy"] == 16


def test_a_shard_is_split_where_its_keys_balance_until_each_part_fits():
    keys = [(1, 400.0), (2, 400.0), (3, 400.0), (4, 400.0)]
    assert f.split(keys, 1000) == [keys[:2], keys[2:]]
    assert f.split([(1, 1200.0), (2, 10.0)], 1000) == [[(1, 1200.0)], [(2, 10.0)]]  # a key alone stays over


def test_a_race_fits_until_one_group_passes_a_shard():
    # a group's key is one shard's and one lane's whatever the plan: riders / 16 records a second at most 1,000
    assert f.second(MEASURED, SECOND, 1, 16_000)["fits"] and not f.second(MEASURED, SECOND, 1, 17_000)["fits"]
    assert f.largest_race(MEASURED, SECOND, f.HISTORY, step=1000, most=20_000) == 16_000


def test_the_race_partition_takes_the_slice_boards_of_every_batch():
    small = f.second(MEASURED, f.Sizing(batch=100, window_s=1), 1, 10_000)
    boards = small["partitions"]["RACE#<race> (slice boards, ticker and origin reads)"]
    # 112 slices of 89 racers on average (a board over 1 KB, 2 WCU, from 81 racers), 7 batches of 100 a second each:
    # over the partition's 1,000
    assert small["slices_a_race"] == 112 and 112 * 7 * 1.5 < boards["wcu"] < 112 * 7 * 2 and not small["fits"]
    race = f.second(MEASURED, SECOND, 1, 10_000)  # batches of 1,000, one a lane a second: one a slice a second
    assert race["partitions"]["RACE#<race> (slice boards, ticker and origin reads)"]["wcu"] == pytest.approx(
        boards["wcu"] / 7, abs=0.01)
    assert race["fits"] and all(row["under"] for row in race["partitions"].values())


def test_100_races_of_1000_name_the_quotas_to_raise():
    many = f.second(MEASURED, SECOND, 100, 1000)
    over = {q["quota"].split(",")[0] for q in many["quotas"] if q["over"]}
    assert "IoT Core inbound publish requests" in over and "DynamoDB table read units (on-demand)" in over
    # a block's sort key names its race and slice: its index entry is its own partition's, not every race's
    second = "index SECOND#<race>#<slice>#<second> (a new block's entry)"
    assert many["partitions"][second]["wcu"] == MEASURED.block_index_wcu <= 1
    assert all(row["under"] for row in many["partitions"].values())
    assert many["wcu_per_racer_second_hot_path"] < 0.1 < many["wcu_per_racer_second_with_history"] and many["fits"]


def test_the_history_writer_is_taken_from_its_recorded_requests():
    assert f.history((), 1000) == f.HISTORY and not f.HISTORY.recorded
    written = tuple(Request("history", "UpdateItem", f"RACER#r{n}", wcu=2, item="HIST#x") for n in range(1000)) \
        + (Request("history", "Query", "RACE#x", rcu=4),)
    recorded = f.history(written, 1000)
    assert recorded.recorded and recorded.write_wcu == 2 and recorded.rcu_a_racer_batch == pytest.approx(0.004)
    # a 30-s window at any offset touches 1 + 29/30 chunks of 30 s: a write each, 2 WCU
    assert recorded.writes_a_racer_second == pytest.approx((1 + 29 / 30) / 30)
    assert recorded.wcu_a_racer_second == pytest.approx(2 * (1 + 29 / 30) / 30 + 2 / 30)
