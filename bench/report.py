"""docs/performance.md and docs/performance.json from the figures of one run."""

from __future__ import annotations

import json
import os
import platform
import sys
from datetime import datetime, timezone

from .env import ROOT
from .pricing import SEEN

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
    """Both files; ``header=False`` keeps the run's date and machine (one stage was measured again)."""
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
        "boto3 (compiled too) on its import path (`PYTHONPATH`, `-s -S -P -B`: no site-packages, so neither awscrt nor pyOpenSSL, which "
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
    origin_rcu = 1 * race["leaderboard_read_rcu"]
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
        f"(2) a **{race['racers']:,}-racer** race **as bikes post it** (`bench/bikes.py`): every racer joins itself "
        f"through `join_race` ({race['join_requests']:,} DynamoDB requests, {race['join_seconds']:.0f} s) and then posts its "
        f"own one-sample `POST /races/{{raceId}}/telemetry` each second, signed in as itself, with an `Idempotency-Key` — "
        f"**{race['bikes']['requests']:,} requests from {race['bikes']['racers']:,} racers** over the **first "
        f"{race['simulated_seconds']} s**, a second's posts all at once over {race['bikes']['workers']} worker processes (each "
        "an execution environment: one event at a time, the deployed functions' settings) in no fixed order; each second's "
        f"stream batch through the real `stream_processor` in a worker too ({race['wall_seconds_per_simulated_second']:.1f} s "
        "of wall time per simulated second on this machine); then the "
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
                 f"({race['leaderboard_read_bytes'] / 1024:.1f} KB)", "1",
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
        "Per invocation, as measured in the bikes' replay (mean over every invocation; CPU is the worker process's, "
        "every thread, botocore's work included; DynamoDB Local's is in another process; a *wave* is DynamoDB requests "
        "in flight together, one round trip; log bytes are what reaches CloudWatch Logs at the configured levels — "
        "application INFO, system WARN — per invocation):",
        _table(["invocation", "count", "wall ms p50 / p99", "CPU ms mean / p99", "DynamoDB requests", "waves",
                "RCU", "WCU", "log lines", "log bytes"],
               [[name, f"{x['invocations']:,}", f"{x['wall_ms']['p50']:.1f} / {x['wall_ms']['p99']:.1f}",
                 f"{x['cpu_ms']['mean']:.2f} / {x['cpu_ms']['p99']:.2f}", f"{x['dynamodb_requests']:.2f}", f"{x['waves']:.2f}",
                 f"{x['rcu']:.2f}", f"{x['wcu']:.2f}", f"{x['log_events']:.3f}", f"{x['log_bytes']:.1f}"]
                for name, x in _invocations(race)]),
        "What a healthy request writes: nothing but what is sampled (Powertools' log sampling, "
        "`routes.LOG_SAMPLE_RATE`: one request in a hundred writes its request line); the stream processor's metrics "
        "line (accepted samples, once per batch); a failed request writes every line it buffered. Examples seen: "
        + "; ".join(f"`{line[:160]}…`" if len(line) > 160 else f"`{line}`"
                    for line in _examples(race)) + ".",
        "## 5. Cost of one race",
        *cost_section(f),
        "## 6. The local stack: two races back to back",
        "`make local` on this machine (DynamoDB Local + the API server and stream poller in one Python process): two "
        "races, each 40 racers × 120 s, posted one after the other as fast as 4 threads can (one request per race-second "
        "carrying every racer), then the race leaderboard polled until it equals the sums computed from the samples "
        "sent (`bench/backtoback.py`).",
        _table(["race", "posted in s", "settled s after the last post", "board = independent sums", "memory after"],
               [[str(n), f"{r['post_seconds']:.1f}", f"{r['settle_seconds']:.1f}", "yes" if r["settled"] else "**no**",
                 r["memory"]] for n, r in enumerate(f["local_stack"], start=1)]),
    ]
    if f.get("push"):  # section 7, bench/push.py
        from .push import markdown as push_markdown

        parts += push_markdown(f)
    return "\n\n".join(parts) + "\n"


def _invocations(race: dict) -> list:
    b = race["bikes"]
    rows = [("post_telemetry (a bike's one sample)", b["post_telemetry"]), ("join_race (a racer joining)", b["join_race"]),
            (f"stream_processor ({b['stream_processor']['records_per_invocation']:,.0f} records)", b["stream_processor"])]
    rows += [(f"get_race_leaderboard limit={limit}", b["pages"][limit]) for limit in ("100",) if limit in b["pages"]]
    return rows


def _examples(race: dict) -> list[str]:
    b = race["bikes"]
    return [line for part in ("post_telemetry", "stream_processor") for line in b[part]["example_lines"][:1]]


def _inputs(row: dict) -> str:
    out = []
    for i in row["inputs"]:
        value = i["value"]
        shown = f"{value:,.4g}" if isinstance(value, (int, float)) else str(value)
        if i["kind"] == "measured":
            out.append(f"{i['name']} {shown} (measured: `{i['source']}`)")
        elif i["kind"] == "assumed":
            out.append(f"{i['name']} {shown} (**assumed**)")
        else:
            out.append(f"{i['name']} {shown} (scenario)")
    return "; ".join(dict.fromkeys(out))


def _target(cost: dict, levers: list[dict]) -> str:
    """What stands between the bill and the $1.20 the issue set, and which single lever closes the gap."""
    total = cost["total"]
    largest = sorted(cost["lines"], key=lambda r: -r["usd"])[:4]
    text = ("**Against the $1.20 target:** " + ("met" if total <= 1.20 else f"**{total:.2f}, {total - 1.20:.2f} over**")
            + ". The largest lines: " + ", ".join(f"{r['item'].split(' (')[0]} ${r['usd']:.2f}" for r in largest) + ". ")
    if total > 1.20:
        closing = [l for l in levers if l["total"] <= 1.20]
        text += ("The floor of this ingestion design alone — each sample an HTTP API request, a Lambda request and a "
                 "write unit — is $0.55, the viewers' requests $0.30, and the exact live board reads two units per "
                 "racer-second on each side (telemetry's gate and entry, the stream's entry and chunk: issue 16). "
                 + ("Each of these levers alone brings the race under $1.20: "
                    + "; ".join(f"{l['lever']} (${l['total']:.2f})" for l in closing) + "." if closing else
                    "No single lever below brings it under $1.20."))
    return text


def cost_section(f: dict) -> list[str]:
    cost, race, prices = f["cost"], f["race_day"], f["prices"]
    b = race["bikes"]
    total = cost["total"]
    pages = b["pages"]
    return [
        "The scenario as written (issue 12): 1,000 racers, each bike posting its own one-sample request every second "
        "for 300 s straight to the HTTP API; 1,000 viewers polling the live board every second through CloudFront, "
        "which is the frontend's first page: the top 100 (`limit=100`; the racer's own row and pages below are fetched "
        "only by a signed-in racer below the top 100, or on demand). Every quantity is built from this run's "
        "measurements (named by their path in `performance.json`), the scenario, or a value labelled **assumed** "
        "(the table after the bill says why); `tests/unit/test_priced_quantities.py` fails on a priced quantity with "
        "none of these behind it.",
        "**Lambda duration, the method.** Nothing here runs on Lambda, so each invocation's billed duration is modelled "
        "from what was measured: `ceil(CPU ms × 1,769 / memory MB + waves × round trip)`. CPU ms is the invocation's "
        "CPU time in its worker (mean over the replay), stretched by 1,769 / memory because Lambda gives CPU in "
        "proportion to memory, one vCPU at 1,769 MB (post_telemetry has 1,769 MB: ×1; the stream processor 1,024: "
        "×1.73; the others 256: ×6.9); a wave costs one DynamoDB round trip (**assumed** 5 ms). The stream's measured "
        "invocation (all 1,000 racers' records) is split over S shards: the same CPU in total, its waves once per "
        "shard. INIT: each cold start's interpreter start (measured here) plus the handler's import and first request "
        "(section 1), at the function's memory.",
        _table(["line", "quantity", "US$", "from"],
               [[r["item"], f"{r['quantity']:,.2f} {r['unit']}", f"{r['usd']:.3f}", _inputs(r)] for r in cost["lines"]]
               + [["**total per race**", "", f"**{total:.2f}**", "target ≤ 1.20: " + ("**met**" if total <= 1.20 else
                                                                                   f"**not met** (+{total - 1.20:.2f})")]]),
        _target(cost, f["levers"]),
        f"Viewer pages as measured (the board's answer at each `limit` the frontend asks; 1,000 racers): "
        + ", ".join(f"{limit} rows {p['bytes'] / 1024:.1f} KB → gzip {p['gzip_bytes'] / 1024:.1f} KB, Brotli "
                    f"{p['brotli_bytes'] / 1024:.1f} KB" for limit, p in pages.items())
        + f". Before this change the frontend asked all 1,000 rows every second: "
        f"{pages[max(pages, key=int)]['gzip_bytes'] / 1024:.1f} KB gzip a poll, "
        f"${300_000 * pages[max(pages, key=int)]['gzip_bytes'] / 1e9 * prices['cloudfront_gb_out']['usd']:.2f} of data out a race.",
        "**What is assumed, and why:**",
        _table(["assumed", "value", "why"], [[k, f"{v['value']}", v["why"]] for k, v in f["assumed"].items()]),
        "**Fixed monthly costs** (whether or not anyone races), beside the per-race figure:",
        _table(["item", "count", "US$ a month", "from"],
               [[k, r["count"], f"{r['usd']:.2f}", r["from"]] for k, r in f["fixed_monthly"]["rows"].items()]
               + [["**total a month**", "", f"**{f['fixed_monthly']['total']:.2f}**", ""]]),
        "**Levers**: the same race with one thing changed, priced by the same code from the same measurements "
        "(`pricing.levers`):",
        _table(["lever", "US$ per race", "vs. the scenario", "what it costs the user", "source"],
               [[l["lever"], f"{l['total']:.2f}", f"{l['delta']:+.2f}", l["user_cost"], l["source"]] for l in f["levers"]]),
        "**Prices** (us-east-1, on-demand list prices; free tiers and CloudFront's flat-rate plans left out; read on "
        f"{SEEN} from the page named, or where that page's stored copy did not show the figure, from the dated page "
        "quoting it; *list*: the page's published list price, not re-read here — check before quoting):",
        _table(["price", "US$", "unit", "page", "seen"],
               [[k, f"{p['usd']:.10g}", p["unit"], p["page"], p["seen"]] for k, p in prices.items()]),
    ]
