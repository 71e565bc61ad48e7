"""docs/performance.md and docs/performance.json: report.md filled from the figures.

report.md is formatted line by line (``str.format``); a line ``@rows | {a} | {b} |`` is a table row
repeated for each item of ``rows``.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

from .env import ROOT
from .pricing import DATA

TEMPLATE = Path(__file__).with_name("report.md").read_text()
TARGET = 1.20


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), Python {sys.version.split()[0]}"


def write(f: dict, header: bool = True) -> None:
    """Both files; ``header=False`` keeps the run's date and machine (one stage was measured again)."""
    if header:
        f["generated"], f["machine"] = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), machine()
    (ROOT / "docs" / "performance.json").write_text(json.dumps(f, indent=1, default=str) + "\n")
    (ROOT / "docs" / "performance.md").write_text(markdown(f))


def pct(value: float, limit: float = 1000) -> str:
    return f"{value:,.0f} ({value / limit:.0%})"


def _inputs(row: dict) -> str:
    shown = lambda v: f"{v:,.4g}" if isinstance(v, (int, float)) else str(v)  # noqa: E731
    kind = lambda i: f"measured: `{i['source']}`" if i["kind"] == "measured" else {"assumed": "**assumed**"}.get(i["kind"], i["kind"])  # noqa: E731
    return "; ".join(dict.fromkeys(f"{i['name']} {shown(i['value'])} ({kind(i)})" for i in row["inputs"]))


def _values(f: dict) -> dict:
    """What report.md names beyond the figures themselves: rows of its tables, and sentences that depend."""
    cold, run, race, model, cost, p = f["cold_start"], f.get("cold_start_run", {}), f["race_day"], f["model"], f["cost"], f["push"]
    b, pages, shards = race["bikes"], race["bikes"]["pages"], f["assumed"]["stream_shards"]["value"]
    functions = [c for c in cold.values() if "no_bytecode" in c]
    span = lambda key: f"{min(map(key, functions)):.2f}–{max(map(key, functions)):.2f}×"  # noqa: E731
    total, largest = cost["total"], sorted(cost["lines"], key=lambda r: -r["usd"])[:4]
    closing = "; ".join(f"{lever['lever']} (${lever['total']:.2f})" for lever in f["levers"] if lever["total"] <= TARGET)
    lighter = p.get("lighter")
    coalesced = [lever["total"] for lever in f.get("levers", []) if "coalesced" in lever["lever"]]
    return {
        "race": race, "p": p, "quick_note": " — **quick run (BENCH_QUICK=1): not figures to publish**" if f["quick"] else "",
        "cold_when": (f"Measured {run['generated']} (`BENCH_ONLY=coldstart`, {run['machine']})"
                      + (" — **quick run: not figures to publish**" if run.get("quick") else "") + ". ") if run.get("alone") else "",
        "cold_python": run.get("python", "3.13"), "cold_runs": cold["boto3"]["runs"],
        "cold_span": f" ({span(lambda c: c['no_bytecode']['vs_boto3'])} here, against {span(lambda c: c['vs_boto3'])} "
                     "with bytecode)" if functions else "",
        "cold": [{"name": name, **c, "status": ", ".join(c["status"]),
                  "vs": f"**{c['vs_boto3']:.2f}**" if "no_bytecode" in c else f"{c['vs_boto3']:.2f}",
                  "source": f"{c['no_bytecode']['total_cpu_ms']:.0f} ({c['no_bytecode']['vs_boto3']:.2f})" if "no_bytecode" in c else ""}
                 for name, c in cold.items()],
        "routes": [{"route": route, "s": s, "l": f["requests"]["large"][route],
                    "operations": ", ".join(f"{op} {n}" for op, n in s["operations"].items())}
                   for route, s in f["requests"]["small"].items()],
        "overhead": [{"route": route, **o} for route, o in f["overhead"].items()]
        + [{**f[k], "route": f"get_race_leaderboard, {n} rows ({f[k]['runs']} runs)"}
           for n, k in (("10", "leaderboard_10"), ("1,000", "leaderboard_1000"))],
        "remaining_seconds": 300 - race["simulated_seconds"], "last_second": race["simulated_seconds"] - 1,
        "time_scale": 300 / race["simulated_seconds"], "racer_scale": race["racers"] / race["long"]["racers"],
        "finish_text": ", ".join(f"{k} {v:,.0f}" for k, v in race["finish"].items()) or "not replayed",
        "operations": [{"op": op, **o} for op, o in race["per_second_by_operation"].items()],
        "steady_wcu": sum(o["wcu"] for o in race["per_second_by_operation"].values()),
        "peak_racer": pct(race["table_peaks"].get("racer RACER#<racer>", 0)), "peak_race": pct(race["table_peaks"].get("race RACE#<race>", 0)),
        "peak_index": pct(max(race["index_peaks"].values(), default=0)), "model_racer": pct(model["racer_partition_peak_wcu"]),
        "model_board": pct(model["board_write_wcu_at_finish"] * model["board_shards"]),
        "model_board_8": pct(model["board_write_wcu_at_finish"] * model["board_shards"] * 8),
        "model_index": pct(model["chunk_index_peak_wcu"]), "naive_peak": pct(model["naive_race_partition_peak_wcu"]),
        "join_index": ", ".join(f"{k} {v:.1f}" for k, v in race["index_wcu_per_join_by_partition"].items()),
        "joins_to_limit": 1000 / max(race["race_partition_wcu_per_join"], 1),
        "index_joins_to_limit": 1000 / max(race["index_peak_partition_wcu_per_join"], 1e-9),
        "poll_rcu": pct(race["leaderboard_read_rcu"], 3000), "uncached_rcu": pct(1000 * race["leaderboard_read_rcu"], 3000),
        "model_every": race["racers"] // model["sampled_racers"],
        "invocations": [{"name": "post_telemetry (a bike's one sample)", **b["post_telemetry"]},
                        {"name": "join_race (a racer joining)", **b["join_race"]},
                        {"name": f"stream_processor ({b['stream_processor']['records_per_invocation']:,.0f} records)",
                         **b["stream_processor"]}]
        + [{"name": f"get_race_leaderboard limit={n}", **pages[n]} for n in ("100",) if n in pages],
        "examples": "; ".join(f"`{line[:160]}…`" if len(line) > 160 else f"`{line}`"
                              for part in ("post_telemetry", "stream_processor") for line in b[part]["example_lines"][:1]),
        "lines": [{**r, "from": _inputs(r)} for r in cost["lines"]],
        "met": "**met**" if total <= TARGET else f"**not met** (+{total - TARGET:.2f})",
        "target": ("met" if total <= TARGET else f"**{total:.2f}, {total - TARGET:.2f} over**") + ". The largest lines: "
        + ", ".join(f"{r['item'].split(' (')[0]} ${r['usd']:.2f}" for r in largest) + "."
        + ("" if total <= TARGET else " The floor of this ingestion design alone — each sample an HTTP API request, a "
           "Lambda request and a write unit — is $0.55, the viewers' requests $0.30, and the exact live board reads two "
           "units per racer-second on each side (telemetry's gate and entry, the stream's entry and chunk: issue 16). "
           + (f"Each of these levers alone brings the race under $1.20: {closing}." if closing
              else "No single lever below brings it under $1.20.")),
        "per_function": ", ".join(f"{k} {v:,.0f}" for k, v in cost["per_function_gb_seconds"].items()),
        "pages_text": ", ".join(f"{n} rows {q['bytes'] / 1024:.1f} KB → gzip {q['gzip_bytes'] / 1024:.1f} KB, Brotli "
                                f"{q['brotli_bytes'] / 1024:.1f} KB" for n, q in pages.items()),
        "all_rows_gzip_kb": pages[max(pages, key=int)]["gzip_bytes"] / 1024,
        "all_rows_usd": 300_000 * pages[max(pages, key=int)]["gzip_bytes"] / 1e9 * f["prices"]["cloudfront_gb_out"]["usd"],
        "assumed_rows": [{"name": k, **v} for k, v in f["assumed"].items()],
        "fixed": [{"name": k, **r} for k, r in f["fixed_monthly"]["rows"].items()],
        "prices_rows": [{"name": k, **q} for k, q in f["prices"].items()], "seen": DATA["seen"],
        "local": [{"n": n, **r, "ok": "yes" if r["settled"] else "**no**"} for n, r in enumerate(f["local_stack"], start=1)],
        "push_quick": "**Quick run (BENCH_QUICK=1): not figures to publish.** " if p.get("quick") else "",
        "push_late": (f" **At that load the stack did not keep real time** ({p['late_ticks']} of {p['race_seconds']} "
                      "ticks late: the bikes' seconds came slower than one a second, and every stage queued behind the "
                      "others' work), so the figures hold queueing a machine to itself would not have."
                      if p["late_ticks"] > p["race_seconds"] / 10 else ""),
        "lighter": [lighter] if lighter else [], "differ": p["differ"],
        "push_lighter": (f"The rows of {lighter['racers']} bikes: the same run again with the same {p['viewers']} viewers "
                         f"right after (load {lighter['load_average']['during_mean']:.1f} on average), where the stack "
                         "keeps close to real time." if lighter else ""),
        "shards": shards, "messages_all_shards": p["messages_per_second"] * shards,
        "coalesced": f" Coalesced to one message a second per race (a lever, not built: section 5), a race would cost "
                     f"${coalesced[0]:.2f}." if coalesced else "",
    }


def markdown(f: dict) -> str:
    values, out = {**f, **_values(f)}, []
    for line in TEMPLATE.splitlines():
        if line.startswith("@"):
            rows, line = line[1:].split(" ", 1)
            out += [line.format_map(row) for row in values[rows]]
        else:
            out.append(line.format_map(values))
    return "\n".join(out) + "\n"
