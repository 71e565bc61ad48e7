"""docs/performance.md and docs/performance.json from the figures of one run."""

from __future__ import annotations

import json
import os
import platform
import sys
from datetime import datetime, timezone

from .env import ROOT

LIMIT_WCU, LIMIT_RCU = 1000, 3000


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), Python {sys.version.split()[0]}"


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def _pct(value: float, limit: float) -> str:
    return f"{value:,.0f} ({value / limit:.0%})"


def write(f: dict, header: bool = True) -> None:
    """Both files; ``header=False`` keeps the run's date and machine (only stage 1 was measured again)."""
    if header:
        f["generated"] = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        f["machine"] = machine()
    (ROOT / "docs" / "performance.json").write_text(json.dumps(f, indent=1, default=str) + "\n")
    (ROOT / "docs" / "performance.md").write_text(markdown(f))


# Issue 12's last figures (docs/cold-start.md has its table): the venv's Python 3.11.7, the shared layer
# compiled from source in every run, Powertools from the venv's 3.11 bytecode, the same baseline.
BEFORE_313 = "1.22–1.63× (2026-11-23, Python 3.11.7, no bytecode shipped)"


def _cold_start_text(f: dict) -> str:
    cold, run = f["cold_start"], f.get("cold_start_run", {})
    when = (f"Measured {run['generated']} (`BENCH_ONLY=coldstart`, {run['machine']})"
            + (" — **quick run: not figures to publish**" if run.get("quick") else "") + ". ") if run.get("alone") else ""
    functions = [c for c in cold.values() if "no_bytecode" in c]
    return (
        when + "`cdk synth` builds every function's folder and both layers as for a deploy, compiled for python3.13 "
        f"(docs/cold-start.md). A fresh **Python {run.get('python', '3.13')}** per run imports the function's handler "
        "from its asset folder in `cdk.out`, with only the layers' `python/` folders and a stand-in for the runtime's "
        "boto3 (compiled too) on its import path (`-I -S -B`: no site-packages, so neither awscrt nor pyOpenSSL, which "
        "Lambda's runtime lacks; no bytecode written, as Lambda's folders are read-only), and serves its `events/` "
        f"request against the embedded DynamoDB; median of {cold['boto3']['runs']} runs, in rounds that run the "
        "baseline and every function in turn (`finish_race`, which closes the race the others read, in rounds of its "
        "own, against those rounds' baseline). Interpreter start-up itself is not included. **× boto3** divides a "
        "function's CPU time by the baseline's, **`boto3_request`**: the same interpreter with only the runtime's "
        "packages, importing boto3, creating the DynamoDB client and making a first request of the kind most "
        "functions make first (a Query of one race's partition), so botocore's first-call costs (the operation's "
        "model, endpoint rules, signing, parsing) are on both sides; `boto3` is the client alone; `botocore_request` "
        "is `boto3_request` with botocore's own client, as the functions make theirs (`alleycat.dynamo.client`: "
        "boto3 itself is never imported). The standard library that Lambda's runtime has imported before it imports "
        "a handler (json, logging, decimal, concurrent.futures, ...) is imported before the clock starts. CPU time leaves out "
        "waiting for DynamoDB Local (its transactions take tens of ms, DynamoDB's a few); wall time is shown too. "
        "**No bytecode** runs the same function from copies of its folders without `.pyc`, in the same rounds: what a "
        "synth with `ALLEYCAT_ALLOW_NO_BYTECODE=1` ships, and every deploy shipped before, so every cold start "
        "compiles what it imports"
        + (f" ({min(c['no_bytecode']['vs_boto3'] for c in functions):.2f}–"
           f"{max(c['no_bytecode']['vs_boto3'] for c in functions):.2f}× here, against "
           f"{min(c['vs_boto3'] for c in functions):.2f}–{max(c['vs_boto3'] for c in functions):.2f}× with bytecode)"
           if functions else "")
        + f". Before, this stage timed the venv's interpreter importing the working tree: {BEFORE_313}.")


def markdown(f: dict) -> str:
    cold, race, model, cost = f["cold_start"], f["race_day"], f["model"], f["cost"]
    shards = model["board_shards"]
    ops = race["per_second_by_operation"]
    steady_wcu = sum(o["wcu"] for o in ops.values())
    origin_rcu = cost["origin_fetches"] / 300 * race["leaderboard_read_rcu"]
    uncached_rcu = 1000 * race["leaderboard_read_rcu"]
    parts = [
        "# Performance",
        f"Generated by `make bench` on {f['generated']}, {f['machine']}, in {f['elapsed_seconds']:.0f} s"
        + (" — **quick run (BENCH_QUICK=1): not figures to publish**" if f["quick"] else "") + ". "
        "DynamoDB is AWS's DynamoDB Local, in memory (`local/dynamodb_local.py`), so absolute latencies are "
        "this machine's, not AWS's. Capacity units of single-item writes are the engine's own accounting "
        "(`ReturnConsumedCapacity=INDEXES`); those of transactions and batch writes, and of reads, are computed from "
        "the items before and after with DynamoDB's sizing rules (`alleycat/sizing.py`, `bench/ledger.py`). Raw figures: "
        "[performance.json](performance.json).",
        "## 1. Cold start per function",
        _cold_start_text(f),
        _table(["function", "import CPU ms", "first request CPU ms", "total CPU ms", "× boto3",
                "no bytecode: CPU ms (× boto3)", "wall ms (min–max)", "× boto3 wall", "status"],
               [[name, f"{c['import_cpu_ms']:.0f}", f"{c['first_request_cpu_ms']:.0f}", f"{c['total_cpu_ms']:.0f}",
                 f"**{c['vs_boto3']:.2f}**" if "no_bytecode" in c else f"{c['vs_boto3']:.2f}",
                 f"{c['no_bytecode']['total_cpu_ms']:.0f} ({c['no_bytecode']['vs_boto3']:.2f})" if "no_bytecode" in c else "",
                 f"{c['total_ms']:.0f} ({c['min_ms']:.0f}–{c['max_ms']:.0f})", f"{c['vs_boto3_wall']:.2f}",
                 ", ".join(c["status"])]
                for name, c in cold.items()]),
        "Where `get_race_leaderboard`'s import time goes (`python3.13 -X importtime` of its handler from the "
        "assembly, after the runtime's own imports; cumulative, top entries then the layer's own modules, medians of 5 "
        "runs; botocore comes with the first request, not the import). These are wall times, so a busy machine inflates "
        "them; the import CPU column above is the cold start's figure:",
        _table(["module", "depth", "cumulative ms", "self ms"],
               [[r["module"], r["depth"], f"{r['cumulative_ms']:.1f}", f"{r['self_ms']:.1f}"] for r in f["import_time"]]),
        "## 2. DynamoDB requests and capacity units per route",
        "One invocation of each route with its `events/` request (read routes at their event's `limit`), on a small "
        f"table ({f['tables']['small']['items']:,} items, {f['tables']['small']['bytes'] / 1024:,.0f} KB) and one ten "
        f"times larger ({f['tables']['large']['items']:,} items, {f['tables']['large']['bytes'] / 1024:,.0f} KB; the "
        "racer, class and race partitions the events read hold 10× the results, races and history). Reads are "
        "eventually consistent unless the code asks otherwise; a Query's units are its items' summed size rounded up "
        "to 4 KB; a write's units are the larger of the item before and after per KB, doubled in a transaction; "
        "index WCU are writes to the inverted index (INCLUDE projection).",
        _table(["route", "status", "requests (small → large)", "operations", "RCU small → large",
                "WCU small → large", "index WCU"],
               [[route, s["status"], f"{s['requests']} → {f['requests']['large'][route]['requests']}",
                 ", ".join(f"{op} {n}" for op, n in s["operations"].items()),
                 f"{s['rcu']:g} → {f['requests']['large'][route]['rcu']:g}",
                 f"{s['wcu']} → {f['requests']['large'][route]['wcu']}", f"{s['index_wcu']} → {f['requests']['large'][route]['index_wcu']}"]
                for route, s in f["requests"]["small"].items()]),
        "## 3. Handler overhead (time outside DynamoDB)",
        "Warm invocations on a small table holding the events' class, racer and race; the time between botocore's `before-call` and `after-call` of every request (their union, "
        "since writes run in parallel) is subtracted. p99 of 30 runs is close to the maximum.",
        _table(["route", "p50 ms", "p99 ms", "p50 ms incl. DynamoDB (Local)"],
               [[r, f"{o['p50_ms']:.2f}", f"{o['p99_ms']:.2f}", f"{o['total_p50_ms']:.2f}"] for r, o in f["overhead"].items()]
               + [[f"get_race_leaderboard, {n} rows ({f[k]['runs']} runs)", f"{f[k]['p50_ms']:.2f}", f"{f[k]['p99_ms']:.2f}",
                   f"{f[k]['total_p50_ms']:.2f}"] for n, k in (("10", "leaderboard_10"), ("1,000", "leaderboard_1000"))]),
        f"Mapping the 1,000-racer leaderboard's {f['mapping']['items']} items (the race and its board shards), best of 30:",
        _table(["mapping", "ms", "TypeDeserializer ÷ this"],
               [["`alleycat.attributes.from_item` (values)", f"{f['mapping']['alleycat_attributes_ms']:.2f}",
                 f"{f['mapping']['typedeserializer_vs_attributes']:.1f}×"],
                ["`alleycat.entities.from_items` (typed entities, keys parsed)", f"{f['mapping']['alleycat_entities_ms']:.2f}",
                 f"{f['mapping']['typedeserializer_vs_entities']:.1f}×"],
                ["boto3 `TypeDeserializer` (values)", f"{f['mapping']['boto3_typedeserializer_ms']:.2f}", "1.0×"]]),
        "## 4. Race day: 1,000 racers",
        f"**What was replayed** — everything through the real handlers (`functions/*/app.py`, admin caller) on "
        f"DynamoDB Local, nothing written in bulk, racer ids shaped as Cognito `sub`s (36 characters): (1) a {race['long']['racers']:,}-racer race for its **whole "
        f"{race['long']['simulated_seconds']} s**: class, racers and race created, every racer joined through "
        f"`join_race`, each second one `POST /races/{{raceId}}/telemetry` carrying every racer's sample, then everything "
        "new on the table's stream that passes the mapping's filter delivered to the real `stream_processor` in "
        "batches of 1,000 (as the 1-second batching window would gather them), then `POST /finish` and the stream "
        f"until quiet (ranks, bests, class board, packed history: {race['long']['finish_seconds']:.1f} s); "
        f"(2) a **{race['racers']:,}-racer** race the same way: {race['joins_replayed']:,} joins through `join_race` "
        f"({race['join_requests']:,} requests, {race['join_seconds']:.0f} s), the **first {race['simulated_seconds']} s** "
        f"of telemetry ({race['wall_seconds_per_simulated_second']:.1f} s of wall time per simulated second), then the "
        f"finish ({race['finish_seconds']:.1f} s to settle). **What is modelled:** the remaining "
        f"{300 - race['simulated_seconds']} s of the 1,000-racer race are its replayed per-racer-second figures plus what "
        f"the whole {race['long']['racers']}-racer race cost per racer-second beyond its first {race['simulated_seconds']} s "
        f"({race['late_race_extra_wcu']:.3f} WCU: a new chunk's index entry and the entry's totals when a chunk is done) — "
        f"{300 / race['simulated_seconds']:.0f}× in time, {race['racers'] / race['long']['racers']:.0f}× in racers; and the "
        "naive design in the model table. **Stream shards:** DynamoDB Local gives the table one; the board writes on "
        "the race partition scale with the number S of stream shards carrying the race's records (docs/capacity.md).",
        f"**Settling the finish** ({race['racers']:,} racers, replayed): "
        + (", ".join(f"{k} {v:,.0f}" for k, v in race["finish"].items()) if race["finish"] else "not replayed") + ".",
        "Requests and units per simulated second (replayed, steady state):",
        _table(["operation", "requests/s", "WCU/s", "index WCU/s", "RCU/s"],
               [[op, f"{o['requests']:,.0f}", f"{o['wcu']:,.0f}", f"{o['index_wcu']:,.0f}", f"{o['rcu']:,.1f}"] for op, o in ops.items()]),
        f"Stream invocations per simulated second: {race['stream_invocations_per_second']:.1f} (the chunk records: the "
        "mapping's filter keeps the processor's own entry and board writes out).",
        "Peak WCU per second on one partition, against the 1,000 WCU/s partition limit:",
        _table(["partition", "replayed peak WCU/s (S = 1)", "full race (model)", "limit"],
               [["racer `RACER#<racer>` (chunk + entry), table", _pct(race["table_peaks"].get("racer RACER#<racer>", 0), LIMIT_WCU),
                 _pct(model["racer_partition_peak_wcu"], LIMIT_WCU), "1,000"],
                ["race `RACE#<race>` (board shards), table", _pct(race["table_peaks"].get("race RACE#<race>", 0), LIMIT_WCU),
                 f"{_pct(model['board_write_wcu_at_finish'] * shards, LIMIT_WCU)} per stream shard; S = 8: "
                 f"{_pct(model['board_write_wcu_at_finish'] * shards * 8, LIMIT_WCU)}", "1,000"],
                ["inverted index, any partition", _pct(max(race["index_peaks"].values(), default=0), LIMIT_WCU),
                 _pct(model["chunk_index_peak_wcu"], LIMIT_WCU) + " (a new chunk, its own partition)", "1,000"]]),
        f"**Joining** (all {race['joins_replayed']:,} joins replayed, {race['join_requests']:,} requests) costs, per join, {race['race_partition_wcu_per_join']:.0f} WCU on the race partition (a "
        f"transaction: the race item and one board shard, ×2) and {race['racer_partition_wcu_per_join']:.0f} WCU on "
        "the racer's partition; index writes per join by partition: "
        + ", ".join(f"{k} {v:.1f}" for k, v in race["index_wcu_per_join_by_partition"].items())
        + f". The race partition reaches 1,000 WCU/s at about {LIMIT_WCU / max(race['race_partition_wcu_per_join'], 1):.0f} "
        f"joins per second; the race's `CLASS#` and `RACE#` index partitions at about "
        f"{LIMIT_WCU / max(race['index_peak_partition_wcu_per_join'], 1e-9):.0f} joins per second.",
        "**Reads on the race partition** (limit 3,000 RCU/s). Telemetry reads none of it: a bike's request reads "
        "one of the race's gate copies (`GATE#<race>#<n>`, 10 partitions) and its entry in one BatchGetItem. "
        "The viewers' polls reach it only when CloudFront's cache misses (`Cache-Control: max-age=1`, Origin Shield):",
        _table(["reader", "RCU per read", "reads/s", "RCU/s"],
               [["1,000 viewers polling every second, through CloudFront", f"{race['leaderboard_read_rcu']:g} "
                 f"({race['leaderboard_read_bytes'] / 1024:.1f} KB)", f"{cost['origin_fetches'] / 300:g}",
                 f"**{_pct(origin_rcu, LIMIT_RCU)}**"],
                ["(the same polls without the edge cache)", f"{race['leaderboard_read_rcu']:g}", "1,000",
                 _pct(uncached_rcu, LIMIT_RCU)],
                ["telemetry, 1,000 bikes each second", "0", "1,000", "0"]]),
        f"**Model of the whole race** (every {race['racers'] // model['sampled_racers']}th racer sized from the same "
        "sample stream, sums scaled):",
        _table(["design", "peak WCU/s on the race partition", "peak WCU/s on one racer partition", "WCU for the race (racer-second writes)"],
               [[f"chosen (chunks, entries, {shards} board shards)",
                 f"{_pct(model['board_write_wcu_at_finish'] * shards, LIMIT_WCU)} per stream shard",
                 f"{model['racer_partition_peak_wcu']}", f"{model['racer_partitions_total_wcu_race']:,}"],
                ["naive (score item per racer in the race partition, LSI on score)",
                 f"**{_pct(model['naive_race_partition_peak_wcu'], LIMIT_WCU)}**", "—", f"{model['naive_total_wcu_race']:,}"]]),
        f"**Write units per racer-second: {race['wcu_per_racer_second']:.3f}** ({race['wcu_per_racer_second_replayed']:.3f} "
        f"replayed on {race['racers']:,} racers over seconds 1–{race['simulated_seconds'] - 1}, table and index, "
        f"+ {race['late_race_extra_wcu']:.3f} from the whole {race['long']['racers']}-racer race); replayed steady state "
        f"{steady_wcu:,.0f} WCU/s table-wide. A bike's sample is its own write of one unit (a chunk item stays under "
        "1 KB), so 1.0 is this scenario's floor; the rest is the board shards (once per stream invocation), the "
        "entries (once a chunk) and a new chunk's index entry (once a chunk).",
        "## 5. Cost of one race",
        f"A 1,000-racer, 300-second race in which every bike posts its own one-sample request each second straight to "
        f"the HTTP API, and 1,000 viewers poll the race leaderboard (all 1,000 rows, as the frontend asks) every second "
        f"through CloudFront, whose cache sends {cost['origin_fetches'] / 300:g} request a second to the origin "
        f"(Origin Shield). Prices: {f['prices']['as_of']}: HTTP API ${f['prices']['http_api_request_per_million']} per "
        f"million requests; CloudFront ${f['prices']['cloudfront_https_request_per_million']} per million HTTPS requests, "
        f"${f['prices']['cloudfront_origin_shield_request_per_million']} per million Origin Shield requests, "
        f"${f['prices']['cloudfront_transfer_out_per_gb']} per GB out (the leaderboard gzip-compressed: "
        f"{race['leaderboard_gzip_bytes'] / 1024:.1f} KB of {race['leaderboard_bytes'] / 1024:.1f} KB); Lambda arm64 "
        f"${f['prices']['lambda_request_per_million']} per million requests and ${f['prices']['lambda_arm64_gb_second']} "
        f"per GB-second; DynamoDB on-demand ${f['prices']['dynamodb_write_request_unit_per_million']} per million write "
        f"and ${f['prices']['dynamodb_read_request_unit_per_million']} per million read request units. DynamoDB units "
        "are the replay's (section 4); a bike's request reads two keys where the replayed batch read one per racer. "
        "Lambda durations are the measured overhead (section 3) plus 5 ms per DynamoDB request (an assumption: DynamoDB "
        "Local's latency is not DynamoDB's), at each function's memory; stream reads by Lambda are free; CloudWatch "
        "Logs and X-Ray are not priced.",
        _table(["item", "quantity", "US$"],
               [["HTTP API requests (telemetry, joins, cache misses)", f"{cost['api_requests']:,}", f"{cost['dollars']['http_api']:.3f}"],
                ["CloudFront requests (viewers; Origin Shield)", f"{cost['viewer_polls']:,}; {cost['origin_fetches']:,}",
                 f"{cost['dollars']['cloudfront_requests']:.3f}"],
                ["CloudFront data out", f"{cost['transfer_out_gb']:.2f} GB", f"{cost['dollars']['cloudfront_transfer']:.3f}"],
                ["Lambda invocations", f"{cost['lambda_invocations']:,.0f}", f"{cost['dollars']['lambda_requests']:.3f}"],
                ["Lambda GB-seconds", ", ".join(f"{k} {v:,.0f}" for k, v in cost["lambda_gb_seconds"].items()),
                 f"{cost['dollars']['lambda_duration']:.3f}"],
                ["DynamoDB write request units", f"{cost['write_request_units']:,.0f}", f"{cost['dollars']['dynamodb_writes']:.3f}"],
                ["DynamoDB read request units", ", ".join(f"{k} {v:,.0f}" for k, v in cost["read_units_by_reader"].items()),
                 f"{cost['dollars']['dynamodb_reads']:.3f}"],
                ["**total**", "", f"**{cost['total']:.2f}**"]]),
        f"**The floor of this scenario**: each of the {cost['samples']:,} samples is one HTTP API request, one Lambda "
        f"request and at least one write unit, ${cost['floor']['per_sample'] * 1e6:.3f} per million samples: "
        f"**${cost['floor']['total']:.2f}** per race before anything else is counted. The viewers' data out is the "
        f"other large item: the frontend asks every row; the top 100 rows are {race['leaderboard_top100_gzip_bytes'] / 1024:.1f} KB "
        f"gzip-compressed instead of {race['leaderboard_gzip_bytes'] / 1024:.1f} KB "
        f"(${cost['viewer_polls'] * race['leaderboard_top100_gzip_bytes'] / 1e9 * f['prices']['cloudfront_transfer_out_per_gb']:.3f} "
        "a race instead of the figure above).",
        "## 6. The local stack: two races back to back",
        "`make local` on this machine (DynamoDB Local + the API server and stream poller in one Python process): two "
        "races, each 40 racers × 120 s, posted one after the other as fast as 4 threads can (one request per race-second "
        "carrying every racer), then the race leaderboard polled until it equals the sums computed from the samples "
        "sent (`bench/backtoback.py`).",
        _table(["race", "posted in s", "settled s after the last post", "board = independent sums", "memory after"],
               [[str(n), f"{r['post_seconds']:.1f}", f"{r['settle_seconds']:.1f}", "yes" if r["settled"] else "**no**",
                 r["memory"]] for n, r in enumerate(f["local_stack"], start=1)]),
    ]
    return "\n\n".join(parts) + "\n"
