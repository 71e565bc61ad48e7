"""The bill of one race: each line of prices.json a quantity (``QUANTITIES``) times its price. Quantities read
inputs ``measured`` (by their path in docs/performance.json), ``scenario`` or ``assumed`` (prices.json, with why),
each recorded on the line. Lambda's billed duration is modelled: ``ceil(CPU ms × 1,769 / memory MB + waves ×
round trip ms)`` an invocation (a vCPU at 1,769 MB; a wave: DynamoDB requests in flight together)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from alleycat.rules import ticking

DATA = json.loads(Path(__file__).with_name("prices.json").read_text())
PRICES, SCENARIO, ASSUMED = DATA["prices"], DATA["scenario"], DATA["assumed"]
FULL_VCPU_MB, B = 1769, "race_day.bikes"  # Lambda developer guide, "memory and computing power"
TELEMETRY, JOIN, BOARD, STREAM, FINISHER, TICKER = "post_telemetry", "join_race", "get_race_leaderboard", \
    "stream_processor", "finish_due_race", "tick_race"
ENVELOPE = len(json.dumps({"type": "data", "id": "00000000-0000-0000-0000-000000000000", "event": ""}))


def In(name: str, value, kind: str, source: str) -> dict:
    """An input of a priced line: its value, and its source (the path in performance.json, the scenario's words, why)."""
    if kind not in ("measured", "scenario", "assumed") or not source:
        raise ValueError(f"{name}: a priced quantity needs a measurement, the scenario or an 'assumed' label with why "
                         f"(got {kind!r}, {source!r})")
    return {"name": name, "value": value, "kind": kind, "source": source}


def resolve(figures: dict, path: str):
    for part in path.split("."):
        figures = figures[part]
    return figures


def _sampled(b, per_second: float, seconds: float) -> float:
    """X-Ray traces at Lambda's own sampling: the reservoir's a second, then 5 % of the rest."""
    reservoir = b.a("xray_default_reservoir")
    return seconds * (min(per_second, reservoir) + 0.05 * max(0.0, per_second - reservoir))


# Every quantity by name, read as an attribute of the Bill (``b.posts``); prices.json's lines name theirs.
QUANTITIES = {
    "posts": lambda b: b.s("racers") * b.s("seconds") // b.s("bike_period"),
    "api_posts": lambda b: 0 if b.lever("function_url") or b.lever("iot_basic_ingest") else b.posts,
    "polls": lambda b: b.s("viewers") * b.s("seconds") // b.s("poll_seconds"),
    "origin": lambda b: 0 if b.lever("push") else b.s("origin_fetches_per_second") * b.s("seconds"),  # board fetches
    "shards": lambda b: b.a("stream_shards"),
    "stream_invocations": lambda b: b.shards * b.s("seconds"),  # one a second a shard (the batching window)
    "per_racer": lambda b: b.s("racers") / b.of(STREAM, "records_per_invocation"),  # a smaller replay scaled up
    # board messages of the race as measured: its ticker's, one a race second
    "publishes": lambda b: b.s("seconds") * b.m("push.messages_per_second"),
    # the ticker's ticks: the race's seconds and those after its end until it is settled; each claims its
    # second (one write, an item under 1 KB) and reads the race and its board (one strongly consistent Query)
    "ticks": lambda b: b.s("seconds") + b.a("ticks_after_end") if b.lever("push") else 0,
    # its invocations: the one the race's creation starts (which schedules the next), then one per RUN_SECONDS
    "ticker_invocations": lambda b: (1 + math.ceil((b.a("ticker_wait_before_start_s") + b.s("seconds") + b.a("ticks_after_end"))
                                                   / ticking.RUN_SECONDS)) if b.lever("push") else 0,
    "api_requests": lambda b: b.api_posts + b.s("racers") + b.origin,
    "origin_shield": lambda b: b.a("regional_edge_caches") * b.origin,
    "polled_gb": lambda b: b.polls * (b.page_bytes + b.a("viewer_header_bytes")) / 1e9,
    "connected": lambda b: b.s("viewers") * (b.s("seconds") + b.a("viewers_connected_before_start_s")),
    # each message delivered to every viewer, in metered steps; a connect and a subscribe each; keep-alives
    "appsync_operations": lambda b: (b.publishes * (1 + b.s("viewers")) * max(1, math.ceil(
        b.m("push.bytes_per_message") / (b.a("appsync_metered_kb") * 1024))) + 2 * b.s("viewers")
        + b.connected / b.a("appsync_keep_alive_s")),
    "connection_minutes": lambda b: b.connected / 60,
    "appsync_gb": lambda b: b.publishes * b.s("viewers") * (b.m("push.bytes_per_message") + ENVELOPE) / 1e9,
    "first_paints": lambda b: b.s("first_paints") * b.s("viewers"),
    "first_paint_gb": lambda b: b.first_paints * b.page_bytes / 1e9,
    "iot_minutes": lambda b: b.s("racers") * (b.s("seconds") / 60 + 1),
    "lambda_requests": lambda b: (b.posts + b.s("racers") + b.origin + b.stream_invocations + b.ticker_invocations
                                  + 2),  # + the finisher's two
    "schedules": lambda b: b.s("schedules"),
    # a request of two samples writes its chunk once (a chunk stays under 1 KB); board writes grow with S
    "wru": lambda b: (b.m("race_day.wcu_per_racer_second") * b.s("racers") * b.s("seconds")
                      - (b.s("racers") * b.s("seconds") - b.posts) + b.m("race_day.join_wcu_total")
                      + (b.shards - 1) * b.of(STREAM, "board_wcu_per_invocation") * b.s("seconds")
                      + b.m("race_day.finish.wcu") + b.m("race_day.finish.index_wcu") + b.a("catalog_card_wru")
                      + b.ticks),
    # pushed, the ticker reads the board a tick, strongly consistent (twice an eventually consistent read's units)
    "rru": lambda b: (b.posts * b.of(TELEMETRY, "rcu") + b.s("seconds") * b.of(STREAM, "rcu") * b.per_racer
                      + (2 * b.ticks * b.of(BOARD, "rcu") if b.lever("push") else b.origin * b.of(BOARD, "rcu"))
                      + b.s("racers") * b.of(JOIN, "rcu") + b.m("race_day.finish.rcu")),
    "log_gb": lambda b: (b.posts * b.logged(TELEMETRY) + b.s("racers") * b.logged(JOIN)
                         + b.stream_invocations * b.logged(STREAM) + (b.origin and b.origin * b.logged(BOARD))
                         + (b.api_posts + b.s("racers") + b.origin)
                         * (b.access_log_line + b.a("log_event_overhead_bytes"))) / 1e9,
    "traces": lambda b: (b.a("telemetry_traces") + _sampled(b, b.shards, b.s("seconds")) + _sampled(b, b.s("racers") / 10, 10)
                         + (b.origin and _sampled(b, b.s("origin_fetches_per_second"), b.s("seconds")))),
}


class Bill:
    """One race's quantities; each reads its inputs through ``m``, ``s`` and ``a``, which record them."""

    def __init__(self, figures: dict, levers: dict):
        self.f, self.lever = figures, levers.get
        self.inputs: list[dict] = []
        self.memory = figures["stack"]["memory_mb"]
        pages = resolve(figures, f"{B}.pages")
        self.page = "100" if "100" in pages else min(pages, key=int)  # a quick run's race has fewer racers

    def __getattr__(self, name: str):
        if name not in QUANTITIES:
            raise AttributeError(name)
        return QUANTITIES[name](self)

    def _use(self, name: str, value, kind: str, source: str):
        self.inputs.append(In(name, value, kind, source))
        return value

    def m(self, path: str):
        return self._use(path.removeprefix(B + ".").removesuffix(".mean"), resolve(self.f, path), "measured", path)

    def a(self, name: str):
        return self._use(name, ASSUMED[name]["value"], "assumed", ASSUMED[name]["why"])

    def s(self, name: str):
        value = self.lever(name, SCENARIO[name][0])
        return self._use(name, value, "scenario", SCENARIO[name][1].format(value))

    def of(self, function: str, key: str):
        """A measured per-invocation figure of the bikes' replay (CPU ms: the mean)."""
        where = f"pages.{self.page}" if function == BOARD else function
        return self.m(f"{B}.{where}.{key}" + (".mean" if key == "cpu_ms" else ""))

    @property
    def page_bytes(self) -> int:
        self.a("brotli_quality")  # the top-100 page as measured, compressed at that quality
        return self.of(BOARD, "brotli_bytes")

    def logged(self, function: str) -> float:
        return self.of(function, "log_bytes") + self.of(function, "log_events") * self.a("log_event_overhead_bytes")

    def billed_ms(self, function: str, cpu_ms: float, waves: float) -> int:
        return math.ceil(cpu_ms * self.a("lambda_vcpu_vs_this_core") * max(1.0, FULL_VCPU_MB / self.memory[function])
                         + waves * self.a("dynamodb_round_trip_ms"))

    def gbs(self, function: str, count: float, ms: float) -> float:
        return count * ms / 1000 * self.memory[function] / 1024

    @property
    def duration_gbs(self) -> float:
        """Invocations at their billed duration; the stream's (every racer's records) split over S shards."""
        def invocations(function: str, count: float, cpu_ms: float = 0.0) -> float:
            return self.gbs(function, count, self.billed_ms(function, self.of(function, "cpu_ms") + cpu_ms,
                                                            self.of(function, "waves")))

        stream_ms = self.billed_ms(STREAM, self.of(STREAM, "cpu_ms") * self.per_racer / self.shards, self.of(STREAM, "waves"))
        self.per_function = {
            TELEMETRY: invocations(TELEMETRY, self.posts, self.a("jwt_verify_cpu_ms") if self.lever("function_url") else 0),
            JOIN: invocations(JOIN, self.s("racers")), BOARD: self.origin and invocations(BOARD, self.origin),
            STREAM: self.gbs(STREAM, self.stream_invocations, stream_ms),
            # the ticker runs from before the start to the settlement, sleeping between its ticks (billed all the same)
            TICKER: self.gbs(TICKER, 1, 1000 * (self.a("ticker_wait_before_start_s") + self.s("seconds")
                                                + self.a("ticks_after_end"))) if self.lever("push") else 0,
            FINISHER: self.gbs(FINISHER, 1, self.a("finisher_wait_s") * 1000)}
        return sum(self.per_function.values())

    @property
    def init_gbs(self) -> float:
        """Cold starts: the interpreter's start, the handler's import and first request, at its memory."""
        total, counts = 0.0, {TELEMETRY: "telemetry_cold_starts", JOIN: "join_cold_starts", STREAM: "stream_shards",
                              BOARD: None if self.lever("push") else "leaderboard_cold_starts"}
        for function, count in ((f, c) for f, c in counts.items() if c and f in self.f["cold_start"]):
            cpu = sum(self.m(path) for path in ("interpreter_start.cpu_ms", f"cold_start.{function}.import_cpu_ms",
                                                f"cold_start.{function}.first_request_cpu_ms"))
            ms = cpu * self.a("lambda_vcpu_vs_this_core") * max(1.0, FULL_VCPU_MB / self.memory[function])
            total += self.gbs(function, self.a(count), math.ceil(ms))
        return total

    @property
    def access_log_line(self) -> int:
        """The HTTP API's access-log line for a bike's post, rendered from the stack's format."""
        latency = self.billed_ms(TELEMETRY, self.of(TELEMETRY, "cpu_ms"), self.of(TELEMETRY, "waves"))
        values = {**DATA["access_log"], "$context.requestId": self.a("access_log_request_id"),
                  "$context.identity.sourceIp": self.a("access_log_ip"),
                  "$context.identity.userAgent": self.a("access_log_user_agent"),
                  "$context.path": f"/races/{self.m(f'{B}.race_id')}/telemetry",
                  "$context.authorizer.claims.sub": self.m(f"{B}.example_racer"),
                  "$context.responseLength": str(self.m(f"{B}.telemetry_response_bytes")),
                  "$context.responseLatency": str(latency + 2), "$context.integrationLatency": str(latency)}
        self.access_log_line_bytes = len(json.dumps({k: values[v] for k, v in self.f["stack"]["access_log_fields"].items()}))
        return self.access_log_line_bytes


def race_cost(figures: dict, levers: dict | None = None) -> dict:
    """The race's bill, line by line; ``levers`` changes the scenario (prices.json's lever table)."""
    bill, levers, lines = Bill(figures, levers or {}), levers or {}, []
    for row in DATA["lines"]:
        when = row.get("when")
        if when == "polled" and levers.get("push") or when not in (None, "polled") and not levers.get(when):
            continue
        bill.inputs = []
        quantity = getattr(bill, row["quantity"])
        lines.append({"item": row["item"], "quantity": quantity, "unit": row["unit"], "price": row["price"],
                      "usd": quantity * PRICES[row["price"]]["usd"],
                      "inputs": list({(i["name"], i["source"]): i for i in bill.inputs}.values())})
    return {"lines": lines, "total": sum(line["usd"] for line in lines), "levers": levers,
            "access_log_line_bytes": bill.access_log_line_bytes, "per_function_gb_seconds": bill.per_function}


def fixed_monthly(figures: dict) -> dict:
    """What the stack costs a month whether or not anyone races, counted in the synthesized template."""
    metrics, stack = figures["race_day"]["bikes"]["custom_metrics"], figures["stack"]
    counts = {**stack, "emf_metrics": len(metrics), "detailed_metrics": ASSUMED["detailed_metrics_per_route"]["value"]
              * stack["routes"]}
    why = {"metrics": ", ".join(metrics), "detailed": ASSUMED["detailed_metrics_per_route"]["why"]}
    rows = {r["item"]: {"count": counts[r["count"]], "usd": counts[r["count"]] * PRICES[r["price"]]["usd"],
                        "price": r["price"], "from": r["from"].format(**why)} for r in DATA["fixed_monthly"]}
    return {"rows": rows, "total": sum(r["usd"] for r in rows.values())}


def levers(figures: dict, base: float) -> list[dict]:
    """The same race with one thing changed: dollars, and what it costs the user."""
    return [{"lever": row["lever"], "total": total, "delta": total - base, "user_cost": row["user_cost"],
             "source": row["source"]}
            for row in DATA["levers"] if "push" in figures or not row["change"].get("push")
            for total in [race_cost(figures, row["change"])["total"]]]
