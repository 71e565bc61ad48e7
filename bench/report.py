"""docs/performance.md (report.md, each line ``str.format``-ed with the figures and ``_values``; ``@rows | {a} |``
repeated for each of ``rows``, a dict's items with their ``key``; ``?name text`` kept if ``name``) and .json."""

from __future__ import annotations

import json
import os
import platform
import string
import sys
from datetime import UTC, datetime
from pathlib import Path

from alleycat.rules import ticking

from .env import ROOT
from .pricing import DATA

TEMPLATE = Path(__file__).with_name("report.md").read_text()
TARGET = 0.50  # issue 53: a 1,000-racer, 300-s race with 1,000 viewers on the MQTT path


def machine() -> str:
    info = Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []
    cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), platform.machine())
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), Python {sys.version.split()[0]}"


def write(f: dict, header: bool = True) -> None:
    """Both files; ``header=False`` keeps the run's date and machine (one stage was measured again)."""
    if header:
        f["generated"], f["machine"] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), machine()
    (ROOT / "docs" / "performance.json").write_text(json.dumps(f, indent=1, default=str) + "\n")
    (ROOT / "docs" / "performance.md").write_text(markdown(f))


def pct(value: float, limit: float = 1000) -> str:
    return f"{value:,.0f} ({value / limit:.0%})"


def _inputs(row: dict) -> str:
    shown = lambda v: f"{v:,.4g}" if isinstance(v, (int, float)) else str(v)
    kind = {"measured": "measured: `{source}`", "assumed": "**assumed**", "scenario": "scenario"}
    return "; ".join(dict.fromkeys(f"{i['name']} {shown(i['value'])} ({kind[i['kind']].format(**i)})" for i in row["inputs"]))


def _memory(f: dict) -> list[dict]:
    """The MQTT path's memory (``bench.memory``) as the report's rows."""
    sized, deployed = f["memory"], f["stack"]["memory_mb"]
    consumer, tick, connect = sized["ingest_telemetry"], sized["tick_race"], sized["authorize_ingest"]
    rows = [("ingest_telemetry", f"a lane's {consumer['lane_records_per_second']} records a second within the second "
             f"(with their round trips, {consumer['round_trip_ms_per_record']:.0f} ms a record)", f"{consumer['cpu_ms_per_record']:.1f} ms a record"),
            ("tick_race", f"a tick within {tick['budget_ms']} ms", f"{tick['cpu_ms_per_tick']:.1f} ms a tick"),
            ("authorize_ingest", f"a warm connect within {connect['budget_ms']} ms (CPU-bound: GB-seconds alike at any size)",
             f"{connect['cpu_ms_per_connect']:.2f} ms a connect (p50)")]
    return [{"function": name, "need": need, "cpu": cpu, "rss": sized[name]["peak_rss_mb"], "mb": sized[name]["mb"],
             "deployed": deployed[name]} for name, need, cpu in rows]


def _values(f: dict) -> dict:
    """What report.md names beyond the figures: rows that need more than the figures, sentences that depend."""
    cold, race, model, cost, p = f["cold_start"], f["race_day"], f["model"], f["cost"], f["push"]
    bikes, pages, mq = race["bikes"], race["bikes"]["pages"], race["mqtt"]
    functions = [c for c in cold.values() if "no_bytecode" in c]
    span = lambda key: f"{min(map(key, functions)):.2f}–{max(map(key, functions)):.2f}×"
    closing = "; ".join(f"{lever['lever']} (${lever['total']:.2f})" for lever in f["levers"] if lever["total"] <= TARGET)
    board = model["board_write_wcu_at_finish"] * model["board_shards"]
    return {
        "race": race, "p": p, "cold_span": f" ({span(lambda c: c['no_bytecode']['vs_boto3'])} here, against "
                                           f"{span(lambda c: c['vs_boto3'])} with bytecode)" if functions else "",
        "cold": {name: {**c, "status": ", ".join(c["status"]),
                        "vs": f"**{c['vs_boto3']:.2f}**" if "no_bytecode" in c else f"{c['vs_boto3']:.2f}",
                        "source": f"{c['no_bytecode']['total_cpu_ms']:.0f} ({c['no_bytecode']['vs_boto3']:.2f})"
                        if "no_bytecode" in c else ""} for name, c in cold.items()},
        "routes": {route: {"s": s, "l": f["requests"]["large"][route], "operations": ", ".join(
            f"{op} {n}" for op, n in s["operations"].items())} for route, s in f["requests"]["small"].items()},
        "overhead": {**f["overhead"], f"get_race_leaderboard, 1,000 rows ({f['leaderboard_1000']['runs']} runs)":
                     f["leaderboard_1000"]},
        "remaining_seconds": 300 - race["simulated_seconds"], "last_second": race["simulated_seconds"] - 1,
        "time_scale": 300 / race["simulated_seconds"], "racer_scale": race["racers"] / race["long"]["racers"],
        "finish_text": ", ".join(f"{k} {v:,.0f}" for k, v in race["finish"].items()),
        "scale_walls": [{**wall, "reached_at": "not reached" if wall.get("riders") is None else f"{wall['riders']:,}"}
                        for wall in f.get("scale", {}).get("walls_one_race", [])],
        "mass_start": f.get("scale", {}).get("joins", {}).get("10000", {}),  # a format field's "10000" reads as an int
        "steady_wcu": sum(o["wcu"] for o in race["per_second_by_operation"].values()),
        "peak_racer": pct(race["table_peaks"].get("racer RACER#<racer>", 0)), "model_board_8": pct(board * 8),
        "peak_race": pct(race["table_peaks"].get("race RACE#<race>", 0)), "model_board": pct(board),
        "peak_index": pct(max(race["index_peaks"].values(), default=0)), "model_racer": pct(model["racer_partition_peak_wcu"]),
        "model_index": pct(model["chunk_index_peak_wcu"]),
        "join_index": ", ".join(f"{k} {v:.1f}" for k, v in race["index_wcu_per_join_by_partition"].items()),
        "joins_to_limit": 1000 / max(race["race_partition_wcu_per_join"], 1),
        "index_joins_to_limit": 1000 / max(race["index_peak_partition_wcu_per_join"], 1e-9),
        "poll_rcu": pct(race["leaderboard_read_rcu"], 3000), "uncached_rcu": pct(1000 * race["leaderboard_read_rcu"], 3000),
        "invocations": {"post_telemetry (a bike's one sample)": bikes["post_telemetry"],
                        "join_race (a racer joining)": bikes["join_race"],
                        f"stream_processor ({bikes['stream_processor']['records_per_invocation']:,.0f} records)":
                        bikes["stream_processor"], **{f"get_race_leaderboard limit={n}": pages[n] for n in ["100"] if n in pages}},
        "examples": "; ".join(f"`{line[:160]}…`" if len(line) > 160 else f"`{line}`"
                              for part in ("post_telemetry", "stream_processor") for line in bikes[part]["example_lines"][:1]),
        "lines": [{**r, "from": _inputs(r)} for r in cost["lines"]],
        "http_lines": [{**r, "from": _inputs(r)} for r in cost["http"]["lines"]],
        "memory_rows": _memory(f),
        "mq": mq, "stack": f["stack"], "target_usd": TARGET,
        "mq_load": f"1-minute load average {mq['load_average']:.1f} on {os.cpu_count()} cores shared with other work: CPU figures "
                   f"inflated by it" + (" — **a quick run, not figures to publish**" if mq["quick"] else ""),
        "consumer_per_record": mq["ingest_telemetry"]["cpu_ms"]["mean"] / mq["ingest_telemetry"]["records_per_invocation"],
        "consumer_waves_per_record": mq["ingest_telemetry"]["waves"] / mq["ingest_telemetry"]["records_per_invocation"],
        "met": "**met**" if cost["total"] <= TARGET else f"**not met** (+{cost['total'] - TARGET:.2f})",
        "target": ("met" if cost["total"] <= TARGET else f"**{cost['total']:.2f}, {cost['total'] - TARGET:.2f} over**")
        + ". The largest lines: " + ", ".join(f"{r['item'].split(' (')[0]} ${r['usd']:.2f}"
                                              for r in sorted(cost["lines"], key=lambda r: -r["usd"])[:4]) + ".",
        "over": cost["total"] > TARGET, "closing": f"Each of these levers alone brings the race under ${TARGET:.2f}: {closing}."
        if closing else f"No single lever below brings it under ${TARGET:.2f}.",
        "per_function": ", ".join(f"{k} {v:,.0f}" for k, v in cost["per_function_gb_seconds"].items()),
        "pages_text": ", ".join(f"{n} rows {q['bytes'] / 1024:.1f} KB → gzip {q['gzip_bytes'] / 1024:.1f} KB, Brotli "
                                f"{q['brotli_bytes'] / 1024:.1f} KB" for n, q in pages.items()),
        "seen": DATA["seen"],
        "late": p["late_ticks"] > p["race_seconds"] / 10, "lighter": [p["lighter"]] if p.get("lighter") else [],
        "push_table": [{**row, "verdict": ", ".join(row["missed"]) or "none"}
                       for row in p.get("table", [])],
        "ticker_run_seconds": ticking.RUN_SECONDS,
        "phase_spread": (max(p.get("modelled_p95_s_by_phase", {0: 0}).values())
                         - min(p.get("modelled_p95_s_by_phase", {0: 0}).values())),
        "phases_text": ", ".join(f"{phase} → {p95:.2f}" for phase, p95 in p.get("modelled_p95_s_by_phase", {}).items()),
        **_realtime(f.get("realtime")),
    }


def _realtime(rt: dict | None) -> dict:
    """Section 7's rows: each race measured, and the CPU of a bike-second by process."""
    if not rt:
        return {"realtime": {"quick": False, "goals": {"late_share": 0, "freshness_p95_s": 0}}, "rt_first": {},
                "rt_verdict": "not measured", "rt_rows": [], "rt_cpu": []}
    runs, long = rt["runs"], rt["long"]
    rows = [{**run, "label": f"fresh stack {n}"} for n, run in enumerate(runs, 1)]
    rows += [{**run, "label": f"one stack, race {n} ({run['seconds']} s)"} for n, run in enumerate(long, 1)]
    roles = sorted({role for run in runs + long for role in run["cpu_ms_per_bike_second"]},
                   key=lambda role: -sum(run["cpu_ms_per_bike_second"].get(role, 0) for run in runs))
    mean = lambda role: sum(run["cpu_ms_per_bike_second"].get(role, 0) for run in runs) / len(runs)
    cpu = [{"role": role, "fresh": f"{mean(role):.2f}",
             "long": " / ".join(f"{run['cpu_ms_per_bike_second'].get(role, 0):.2f}" for run in long)} for role in roles]
    cpu.append({"role": "**all**", "fresh": f"**{sum(map(mean, roles)):.2f}**",
                "long": " / ".join(f"**{run['cpu_ms_per_bike_second_total']:.2f}**" for run in long)})
    return {"rt_first": runs[0], "rt_rows": rows, "rt_cpu": cpu,
            "rt_verdict": "met in every run" if rt["met"] else "not met in every run (the rows say where)"}


def markdown(f: dict) -> str:
    values, out, skip = {**f, **_values(f)}, [], False
    field = lambda name: string.Formatter().get_field(name, (), values)[0]
    for line in TEMPLATE.splitlines():
        if skip and not line:  # the blank line after a line left out
            skip = False
            continue
        skip = False
        if line.startswith("?"):
            name, line = line[1:].split(" ", 1)
            skip = not field(name)
            out += [] if skip else [line.format_map(values)]
        elif line.startswith("@"):
            rows, line = line[1:].split(" ", 1)
            rows = field(rows)
            out += [line.format_map(row) for row in
                    ([{"key": key, **row} for key, row in rows.items()] if isinstance(rows, dict) else rows)]
        else:
            out.append(line.format_map(values))
    return "\n".join(out) + "\n"
