"""The bill of one race: each line of prices.json a quantity times its price, and the levers beside it.

Every quantity is built from inputs of three kinds, each recorded on the line it priced: ``measured``
(a figure of this run, named by its path in docs/performance.json), ``scenario`` and ``assumed``
(prices.json, with why). Lambda's billed duration is modelled, since nothing here runs on Lambda:
``ceil(CPU ms × 1,769 / memory MB + waves × round trip ms)`` per invocation — Lambda gives one full
vCPU at 1,769 MB — where a wave is DynamoDB requests in flight together (measured) and a round trip
is assumed.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

DATA = json.loads(Path(__file__).with_name("prices.json").read_text())
PRICES, SCENARIO, ASSUMED = DATA["prices"], DATA["scenario"], DATA["assumed"]
FULL_VCPU_MB = 1769  # Lambda developer guide, "memory and computing power"
B = "race_day.bikes"
STREAM, FINISHER = "stream_processor", "finish_due_race"


@dataclass
class In:
    """One input of a priced line: its value and what stands behind it."""
    name: str
    value: object
    kind: str  # measured | scenario | assumed
    source: str  # measured: the path in performance.json; scenario: its words; assumed: why

    def __post_init__(self):
        if self.kind not in ("measured", "scenario", "assumed") or not self.source:
            raise ValueError(f"{self.name}: a priced quantity needs a measurement, the scenario or an 'assumed' "
                             f"label with why (got {self.kind!r}, {self.source!r})")


def resolve(figures: dict, path: str):
    for part in path.split("."):
        figures = figures[part]
    return figures


class Bill:
    """The quantities of one race; each method records the inputs it reads on the line being priced."""

    def __init__(self, figures: dict, levers: dict):
        self.f, self.levers, self.inputs = figures, levers, []
        self.memory = figures["stack"]["memory_mb"]
        pages = resolve(figures, f"{B}.pages")
        self.page = "100" if "100" in pages else min(pages, key=int)  # a quick run's race has fewer racers

    def _use(self, name: str, value, kind: str, source: str):
        self.inputs.append(In(name, value, kind, source))
        return value

    def m(self, path: str):
        return self._use(path.removeprefix(B + ".").removesuffix(".mean"), resolve(self.f, path), "measured", path)

    def a(self, name: str):
        return self._use(name, ASSUMED[name]["value"], "assumed", ASSUMED[name]["why"])

    def s(self, name: str):
        value, words = SCENARIO[name]
        value = self.levers.get(name, value)
        return self._use(name, value, "scenario", words.format(value))

    def of(self, function: str, key: str):
        """A measured per-invocation figure of the bikes' replay (CPU ms: the mean)."""
        where = f"pages.{self.page}" if function == "get_race_leaderboard" else function
        return self.m(f"{B}.{where}.{key}" + (".mean" if key == "cpu_ms" else ""))

    # --- the scenario's counts -----------------------------------------------------------------
    def posts(self) -> int:
        return self.s("racers") * self.s("seconds") // self.s("bike_period")

    def polls(self) -> int:
        return self.s("viewers") * self.s("seconds") // self.s("poll_seconds")

    def origin(self) -> float:
        """Board fetches reaching the API: none when pushed."""
        return 0 if self.levers.get("push") else self.s("origin_fetches_per_second") * self.s("seconds")

    def shards(self) -> int:
        return self.a("stream_shards")

    def per_racer(self) -> float:
        """The measured stream invocation scaled to the scenario's racers (1.0 at full size)."""
        return self.s("racers") / self.of(STREAM, "records_per_invocation")

    def publishes(self) -> float:
        """Board messages a race publishes: one per stream invocation that wrote its board, on each of S
        shards, unless coalesced to one a second across shards (a lever, not built)."""
        per_second = self.m("push.messages_per_second") * self.shards()
        return (min(per_second, 1.0) if self.levers.get("push_coalesced") else per_second) * self.s("seconds")

    def billed_ms(self, function: str, cpu_ms: float, waves: float) -> int:
        cpu_scale = max(1.0, FULL_VCPU_MB / self.memory[function])
        return math.ceil(cpu_ms * self.a("lambda_vcpu_vs_this_core") * cpu_scale
                         + waves * self.a("dynamodb_round_trip_ms"))

    def gbs(self, function: str, count: float, ms: float) -> float:
        return count * ms / 1000 * self.memory[function] / 1024

    def api_posts(self) -> int:
        return 0 if self.levers.get("function_url") or self.levers.get("iot_basic_ingest") else self.posts()

    # --- the lines' quantities -----------------------------------------------------------------
    def api_requests(self) -> float:
        return self.api_posts() + self.s("racers") + self.origin()

    def origin_shield(self) -> float:
        return self.a("regional_edge_caches") * self.origin()

    def polled_gb(self) -> float:
        self.a("brotli_quality")  # the page's measured bytes were compressed at it
        return self.polls() * (self.of("get_race_leaderboard", "brotli_bytes") + self.a("viewer_header_bytes")) / 1e9

    def connected_minutes(self) -> float:
        return self.s("viewers") * (self.s("seconds") + self.a("viewers_connected_before_start_s"))

    def appsync_operations(self) -> float:
        sent = self.publishes()
        steps = max(1, math.ceil(self.m("push.bytes_per_message") / (self.a("appsync_metered_kb") * 1024)))
        # each message delivered to every viewer; a connect and a subscribe each; a keep-alive a minute
        return ((sent + sent * self.s("viewers")) * steps + 2 * self.s("viewers")
                + self.connected_minutes() / self.a("appsync_keep_alive_s"))

    def connection_minutes(self) -> float:
        return self.connected_minutes() / 60

    def appsync_gb(self) -> float:
        envelope = len(json.dumps({"type": "data", "id": "00000000-0000-0000-0000-000000000000", "event": ""}))
        return self.publishes() * self.s("viewers") * (self.m("push.bytes_per_message") + envelope) / 1e9

    def first_paints(self) -> float:
        return self.s("first_paints") * self.s("viewers")

    def first_paint_gb(self) -> float:
        return self.first_paints() * self.of("get_race_leaderboard", "brotli_bytes") / 1e9

    def iot_minutes(self) -> float:
        return self.s("racers") * (self.s("seconds") / 60 + 1)

    def lambda_requests(self) -> float:  # + the finisher: started, then scheduled
        return self.posts() + self.s("racers") + self.origin() + self.shards() * self.s("seconds") + 2

    def schedules(self) -> int:
        return self.s("schedules")

    def duration_gbs(self) -> float:
        """Each function's invocations at their billed duration; the stream's measured invocation (every
        racer's records) split over S shards: the same CPU in total, its waves once per shard."""
        def gbs(function: str, count: float, extra_cpu: float = 0.0) -> float:
            ms = self.billed_ms(function, self.of(function, "cpu_ms") + extra_cpu, self.of(function, "waves"))
            return self.gbs(function, count, ms)

        shards, seconds = self.shards(), self.s("seconds")
        stream_ms = self.billed_ms(STREAM, self.of(STREAM, "cpu_ms") * self.per_racer() / shards, self.of(STREAM, "waves"))
        publishing = self.publishes() * self.a("publish_ms") if self.levers.get("push") else 0
        self.per_function = {
            "post_telemetry": gbs("post_telemetry", self.posts(),
                                  self.a("jwt_verify_cpu_ms") if self.levers.get("function_url") else 0.0),
            "join_race": gbs("join_race", self.s("racers")),
            "get_race_leaderboard": gbs("get_race_leaderboard", self.origin()) if self.origin() else 0,
            STREAM: self.gbs(STREAM, seconds * shards, stream_ms) + self.gbs(STREAM, 1, publishing),
            FINISHER: self.gbs(FINISHER, 1, self.a("finisher_wait_s") * 1000)}
        return sum(self.per_function.values())

    def init_gbs(self) -> float:
        """Cold starts: the interpreter's start, the handler's import and first request, at its memory."""
        counts = {"post_telemetry": lambda: self.a("telemetry_cold_starts"), "join_race": lambda: self.a("join_cold_starts"),
                  STREAM: self.shards, "get_race_leaderboard": lambda: self.a("leaderboard_cold_starts")}
        total = 0.0
        for function, count in counts.items():
            if function not in self.f["cold_start"] or (self.levers.get("push") and function == "get_race_leaderboard"):
                continue
            cpu = sum(self.m(path) for path in ("interpreter_start.cpu_ms", f"cold_start.{function}.import_cpu_ms",
                                                f"cold_start.{function}.first_request_cpu_ms"))
            ms = cpu * self.a("lambda_vcpu_vs_this_core") * max(1.0, FULL_VCPU_MB / self.memory[function])
            total += self.gbs(function, count(), math.ceil(ms))
        return total

    def wru(self) -> float:
        """A request of two samples writes its chunk once (one unit: a chunk stays under 1 KB); board writes
        grow with S."""
        racer_seconds = self.s("racers") * self.s("seconds")
        return (self.m("race_day.wcu_per_racer_second") * racer_seconds - (racer_seconds - self.posts())
                + (self.shards() - 1) * self.of(STREAM, "board_wcu_per_invocation") * self.s("seconds")
                + self.m("race_day.join_wcu_total") + self.m("race_day.finish.wcu") + self.m("race_day.finish.index_wcu")
                + self.a("catalog_card_wru"))

    def rru(self) -> float:
        """Pushed, the publisher reads the whole board, strongly consistent, once a message."""
        viewers = (self.publishes() * 2 * self.m("race_day.leaderboard_read_rcu") if self.levers.get("push")
                   else self.origin() * self.of("get_race_leaderboard", "rcu"))
        return (self.posts() * self.of("post_telemetry", "rcu") + self.s("seconds") * self.of(STREAM, "rcu") * self.per_racer()
                + viewers + self.s("racers") * self.of("join_race", "rcu") + self.m("race_day.finish.rcu"))

    def access_log_line(self) -> int:
        """The HTTP API's access-log line for a bike's post, rendered from the stack's format."""
        latency = self.billed_ms("post_telemetry", self.of("post_telemetry", "cpu_ms"), self.of("post_telemetry", "waves"))
        values = {"$context.requestId": self.a("access_log_request_id"), "$context.identity.sourceIp": self.a("access_log_ip"),
                  "$context.requestTimeEpoch": "1795600800000", "$context.httpMethod": "POST",
                  "$context.path": f"/races/{self.m(f'{B}.race_id')}/telemetry", "$context.status": "200",
                  "$context.responseLength": str(self.m(f"{B}.telemetry_response_bytes")),
                  "$context.responseLatency": str(latency + 2), "$context.integrationLatency": str(latency),
                  "$context.integrationErrorMessage": "-", "$context.authorizer.error": "-",
                  "$context.authorizer.claims.sub": self.m(f"{B}.example_racer"),
                  "$context.identity.userAgent": self.a("access_log_user_agent")}
        return len(json.dumps({k: values[v] for k, v in self.f["stack"]["access_log_fields"].items()}).encode())

    def log_gb(self) -> float:
        overhead = self.a("log_event_overhead_bytes")
        per = lambda function: self.of(function, "log_bytes") + self.of(function, "log_events") * overhead  # noqa: E731
        functions = (self.posts() * per("post_telemetry") + self.s("racers") * per("join_race")
                     + self.shards() * self.s("seconds") * per(STREAM)
                     + (self.origin() * per("get_race_leaderboard") if self.origin() else 0))
        self.access_log_line_bytes = self.access_log_line()
        access = (self.api_posts() + self.s("racers") + self.origin()) * (self.access_log_line_bytes + overhead)
        return (functions + access) / 1e9

    def traces(self) -> float:
        reservoir = self.a("xray_default_reservoir")

        def sampled(per_second: float, seconds: float) -> float:  # Lambda's: 1 a second, then 5 % of the rest
            return seconds * (min(per_second, reservoir) + 0.05 * max(0.0, per_second - reservoir))

        return (self.a("telemetry_traces") + sampled(self.shards(), self.s("seconds")) + sampled(self.s("racers") / 10, 10)
                + (sampled(self.s("origin_fetches_per_second"), self.s("seconds")) if self.origin() else 0))


def race_cost(figures: dict, levers: dict | None = None) -> dict:
    """The race's bill, line by line; ``levers`` changes the scenario (prices.json's lever table)."""
    bill, levers, lines = Bill(figures, levers or {}), levers or {}, []
    for row in DATA["lines"]:
        when = row.get("when")
        if when == "polled" and levers.get("push") or when not in (None, "polled") and not levers.get(when):
            continue
        bill.inputs = []
        quantity = getattr(bill, row["quantity"])()
        lines.append({"item": row["item"], "quantity": quantity, "unit": row["unit"], "price": row["price"],
                      "usd": quantity * PRICES[row["price"]]["usd"],
                      "inputs": [asdict(i) for i in {(i.name, i.source): i for i in bill.inputs}.values()]})
    return {"lines": lines, "total": sum(line["usd"] for line in lines), "levers": levers,
            "access_log_line_bytes": bill.access_log_line_bytes, "per_function_gb_seconds": bill.per_function}


def fixed_monthly(figures: dict) -> dict:
    """What the stack costs a month whether or not anyone races, counted in the synthesized template."""
    stack = figures["stack"]
    counts = {**stack, "emf_metrics": len(figures["race_day"]["bikes"]["custom_metrics"]),
              "detailed_metrics": ASSUMED["detailed_metrics_per_route"]["value"] * stack["routes"]}
    why = {"metrics": ", ".join(figures["race_day"]["bikes"]["custom_metrics"]),
           "detailed": ASSUMED["detailed_metrics_per_route"]["why"]}
    rows = {r["item"]: {"count": counts[r["count"]], "usd": counts[r["count"]] * PRICES[r["price"]]["usd"],
                        "price": r["price"], "from": r["from"].format(**why)} for r in DATA["fixed_monthly"]}
    return {"rows": rows, "total": sum(r["usd"] for r in rows.values())}


def levers(figures: dict, base: float) -> list[dict]:
    """The same race with one thing changed: dollars, and what it costs the user."""
    return [{"lever": row["lever"], "total": total, "delta": total - base, "user_cost": row["user_cost"],
             "source": row["source"]}
            for row in DATA["levers"] if "push" in figures or not row["change"].get("push")
            for total in [race_cost(figures, row["change"])["total"]]]
