"""The bill of one race: each line of prices.json a quantity (``QUANTITIES``) times its price. Quantities read
inputs ``measured`` (by their path in docs/performance.json), ``scenario`` or ``assumed`` (prices.json, with why),
each recorded on the line. Lambda's billed duration is modelled: ``ceil(CPU ms × 1,769 / memory MB + waves ×
round trip ms)`` an invocation (a vCPU at 1,769 MB; a wave: DynamoDB requests in flight together).

The race is priced on the path as built (``BASE``): bikes publish over MQTT (contract v1.3: IoT Core, the topic
rule, Kinesis, the log's consumer, ``race_day.mqtt``) and the race's ticker pushes its board; the levers price the
HTTP route (the fallback, ``race_day.bikes``) and polling."""

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
CONSUMER, AUTHORIZER, MQ = "ingest_telemetry", "authorize_ingest", "race_day.mqtt"
BASE = {"mqtt": True, "push": True}  # the race as built; a lever changes it
NEGATED = {"polled": "push", "http": "mqtt"}  # a line "when" polled: without push; "when" http: without MQTT
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
    "api_posts": lambda b: 0 if b.lever("function_url") or b.lever("mqtt") else b.posts,
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
    # --- the MQTT path: a connection a bike (its authorizer call), each message a rule run and a Kinesis record
    "iot_minutes": lambda b: b.s("racers") * b.connections_per_racer * (b.s("seconds") + b.a("bikes_connected_before_start_s")) / 60,
    "connections_per_racer": lambda b: b.a("connections_per_racer"),
    "connects": lambda b: b.s("racers") * b.connections_per_racer,
    "record_bytes": lambda b: b.mq(CONSUMER, "record_bytes"),
    # the rules engine meters a rule's processed message in 5 KB steps, Kinesis a record in 25 KB PUT payload units
    "rules": lambda b: b.posts * math.ceil(b.record_bytes / (b.a("iot_rule_metered_kb") * 1024)),
    "rule_actions": lambda b: b.posts,  # one action a message (the Kinesis put; the error action only on a failure)
    "put_units": lambda b: b.posts * math.ceil(b.record_bytes / (b.a("kinesis_put_unit_kb") * 1024)),
    # a lane's billed milliseconds a record (CPU at the consumer's memory, its round trips one after the other):
    # a shard's lanes keep up with 1,000 / that records a second each, at most the shard's 1,000 records and 1 MB
    "record_ms": lambda b: b.duration_ms(CONSUMER, b.mq(CONSUMER, "cpu_ms") / b.mq(CONSUMER, "records_per_invocation"),
                                         b.mq(CONSUMER, "waves") / b.mq(CONSUMER, "records_per_invocation")),
    "riders_per_shard": lambda b: min(1000, 1_000_000 / b.record_bytes,
                                      b.f["stack"]["ingest_parallelization"] * 1000 / b.record_ms),
    "race_shards": lambda b: math.ceil(b.s("racers") / b.s("bike_period") / b.riders_per_shard),
    "shard_hours": lambda b: b.race_shards * (b.s("seconds") + b.a("bikes_connected_before_start_s")) / 3600,
    # the mapping's batches a second: the stream's lanes that hold the race's racers, each up to its batch size
    "lanes": lambda b: min(b.f["stack"]["ingest_shards"] * b.f["stack"]["ingest_parallelization"],
                           b.s("racers") // b.s("bike_period")),
    "consumer_invocations": lambda b: b.s("seconds") * b.lanes * math.ceil(
        b.s("racers") / b.s("bike_period") / b.lanes / b.f["stack"]["ingest_batch_size"]) if b.lever("mqtt") else 0,
    "lambda_requests": lambda b: (b.api_posts + b.consumer_invocations + (b.lever("mqtt") and b.connects)
                                  + b.s("racers") + b.origin + b.stream_invocations + b.ticker_invocations
                                  + 2),  # + the finisher's two
    "schedules": lambda b: b.s("schedules"),
    # a request of two samples writes its chunk once (a chunk stays under 1 KB); board writes grow with S
    "wru": lambda b: b.wru_mqtt if b.lever("mqtt") else (
        b.m("race_day.wcu_per_racer_second") * b.s("racers") * b.s("seconds")
        - (b.s("racers") * b.s("seconds") - b.posts) + b.m("race_day.join_wcu_total")
        + (b.shards - 1) * b.of(STREAM, "board_wcu_per_invocation") * b.s("seconds")
        + b.m("race_day.finish.wcu") + b.m("race_day.finish.index_wcu") + b.a("catalog_card_wru") + b.ticks),
    # the MQTT replay's ledger, per racer: the consumer's and the stream's writes a second as replayed, what the whole
    # race adds past its first seconds (the long replay: a new chunk's index entry, an entry's totals; the same rule
    # on either transport), the S - 1 stream shards' board writes the one-shard engine does not make, the joins, the
    # finish, the ticker's claims as measured a tick
    "wru_mqtt": lambda b: b.wru_fan_in if b.fan_in else ((b.m(f"{MQ}.wcu_per_racer_second_replayed") + b.m("race_day.late_race_extra_wcu"))
                           * b.s("racers") * b.s("seconds") - (b.s("racers") * b.s("seconds") - b.posts)
                           + (b.m(f"{MQ}.join_wcu_total") + b.m(f"{MQ}.finish.wcu") + b.m(f"{MQ}.finish.index_wcu")
                              + (b.shards - 1) * b.mq(STREAM, "board_wcu_per_invocation") * b.s("seconds"))
                           * b.s("racers") / b.m(f"{MQ}.racers")
                           + b.a("catalog_card_wru") + b.ticks * b.tick_wcu),
    # with ALLEYCAT_FAN_IN=on (the replay's setting): the consumer's blocks and slice boards as replayed, the history
    # writer as make bench-scale recorded it (its chunk writes, a new chunk's index entry, the entry once a chunk), the
    # joins (and their slice tags), the finish, the ticks; the stream writes no board a batch
    "fan_in": lambda b: bool(b.m(f"{MQ}.fan_in")) if "fan_in" in resolve(b.f, MQ) else False,
    "history_wcu": lambda b: b.m("scale.fan_in.history_wcu_per_racer_second"),
    # its reads: the race and each of its slices' tags a batch, a racer's share (a batch a window)
    "history_rru": lambda b: (b.m("scale.fan_in.history.rcu_a_racer_batch") / b.m("scale.fan_in.history.window_seconds")
                              * b.s("racers") * b.s("seconds")) if b.fan_in else 0,
    "wru_fan_in": lambda b: ((b.m(f"{MQ}.wcu_per_racer_second_replayed") + b.history_wcu)
                             * b.s("racers") * b.s("seconds") - (b.s("racers") * b.s("seconds") - b.posts)
                             + (b.m(f"{MQ}.join_wcu_total") + b.m(f"{MQ}.finish.wcu") + b.m(f"{MQ}.finish.index_wcu"))
                             * b.s("racers") / b.m(f"{MQ}.racers") + b.a("catalog_card_wru") + b.ticks * b.tick_wcu),
    "tick_wcu": lambda b: b.mq(TICKER, "wcu_per_tick") if b.lever("mqtt") else 1,
    # pushed, the ticker reads the board a tick, strongly consistent (twice an eventually consistent read's units)
    "rru": lambda b: (b.m(f"{MQ}.rcu_per_racer_second_replayed") * b.s("racers") * b.s("seconds") / b.s("bike_period")
                      + (b.ticks * b.mq(TICKER, "rcu_per_tick") if b.lever("push") else b.origin * b.of(BOARD, "rcu"))
                      + (b.m(f"{MQ}.finish.rcu") + b.mq(JOIN, "rcu") * b.m(f"{MQ}.racers")) * b.s("racers") / b.m(f"{MQ}.racers")
                      + b.history_rru) if b.lever("mqtt") else (
        b.posts * b.of(TELEMETRY, "rcu") + b.s("seconds") * b.of(STREAM, "rcu") * b.per_racer
        + (2 * b.ticks * b.of(BOARD, "rcu") if b.lever("push") else b.origin * b.of(BOARD, "rcu"))
        + b.s("racers") * b.of(JOIN, "rcu") + b.m("race_day.finish.rcu")),
    "log_gb": lambda b: (b.api_posts * b.logged(TELEMETRY) + b.s("racers") * b.logged(JOIN)
                         + (b.lever("mqtt") and b.consumer_invocations * b.logged(CONSUMER, MQ)
                            + b.connects * b.logged(AUTHORIZER, MQ))
                         + b.ticker_invocations * b.a("ticker_log_bytes_per_invocation")
                         + b.stream_invocations * b.logged(STREAM) + (b.origin and b.origin * b.logged(BOARD))
                         + (b.api_posts + b.s("racers") + b.origin)
                         * (b.access_log_line + b.a("log_event_overhead_bytes"))) / 1e9,
    # Active functions at Lambda's sampling: the stream's, the joins' (~10 s), the consumer's a second, the
    # authorizer's over the minute bikes connect in, the board's origin fetches; post_telemetry passes through
    "traces": lambda b: (b.a("telemetry_traces") + _sampled(b, b.shards, b.s("seconds")) + _sampled(b, b.s("racers") / 10, 10)
                         + (b.lever("mqtt") and _sampled(b, b.consumer_invocations / b.s("seconds"), b.s("seconds"))
                            + _sampled(b, b.connects / b.a("bikes_connected_before_start_s"), b.a("bikes_connected_before_start_s")))
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

    def mq(self, function: str, key: str):
        """A measured figure of the MQTT replay, by function (CPU ms: the mean)."""
        return self.m(f"{MQ}.{function}.{key}" + (".mean" if key == "cpu_ms" else ""))

    def of(self, function: str, key: str):
        """A measured per-invocation figure of the bikes' replay (CPU ms: the mean)."""
        where = f"pages.{self.page}" if function == BOARD else function
        return self.m(f"{B}.{where}.{key}" + (".mean" if key == "cpu_ms" else ""))

    @property
    def page_bytes(self) -> int:
        self.a("brotli_quality")  # the top-100 page as measured, compressed at that quality
        return self.of(BOARD, "brotli_bytes")

    def logged(self, function: str, replay: str = B) -> float:
        figure = self.mq if replay == MQ else self.of
        return figure(function, "log_bytes") + figure(function, "log_events") * self.a("log_event_overhead_bytes")

    def duration_ms(self, function: str, cpu_ms: float, waves: float) -> float:
        return (cpu_ms * self.a("lambda_vcpu_vs_this_core") * max(1.0, FULL_VCPU_MB / self.memory[function])
                + waves * self.a("dynamodb_round_trip_ms"))

    def billed_ms(self, function: str, cpu_ms: float, waves: float) -> int:
        return math.ceil(self.duration_ms(function, cpu_ms, waves))

    def gbs(self, function: str, count: float, ms: float) -> float:
        return count * ms / 1000 * self.memory[function] / 1024

    @property
    def duration_gbs(self) -> float:
        """Invocations at their billed duration; the stream's (every racer's records) split over S shards."""
        def invocations(function: str, count: float, cpu_ms: float = 0.0) -> float:
            return self.gbs(function, count, self.billed_ms(function, self.of(function, "cpu_ms") + cpu_ms,
                                                            self.of(function, "waves")))

        stream_ms = self.billed_ms(STREAM, self.of(STREAM, "cpu_ms") * self.per_racer / self.shards, self.of(STREAM, "waves"))
        mqtt = self.lever("mqtt")
        consumer_ms = self.consumer_invocations and math.ceil(
            self.record_ms * self.s("racers") * self.s("seconds") / self.s("bike_period") / self.consumer_invocations)
        self.per_function = {
            TELEMETRY: 0 if mqtt else invocations(TELEMETRY, self.posts, self.a("jwt_verify_cpu_ms") if self.lever("function_url") else 0),
            CONSUMER: self.gbs(CONSUMER, self.consumer_invocations, consumer_ms) if mqtt else 0,
            AUTHORIZER: self.gbs(AUTHORIZER, self.connects, self.billed_ms(AUTHORIZER, self.mq(AUTHORIZER, "cpu_ms"), 0))
            if mqtt else 0,
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
        mqtt = self.lever("mqtt")
        total, counts = 0.0, {TELEMETRY: None if mqtt else "telemetry_cold_starts", JOIN: "join_cold_starts",
                              STREAM: "stream_shards", BOARD: None if self.lever("push") else "leaderboard_cold_starts",
                              CONSUMER: mqtt and "consumer_cold_starts", AUTHORIZER: mqtt and "authorizer_cold_starts",
                              TICKER: self.lever("push") and "ticker_cold_starts"}
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
    """The race's bill, line by line, on the path as built (``BASE``); ``levers`` changes it (prices.json's lever table)."""
    levers, lines = {**BASE, **(levers or {})}, []
    bill = Bill(figures, levers)
    for row in DATA["lines"]:
        when = row.get("when")
        if when in NEGATED and levers.get(NEGATED[when]) or when not in (None, *NEGATED) and not levers.get(when):
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
    metrics = sorted({*figures["race_day"]["bikes"]["custom_metrics"], *figures["race_day"]["mqtt"]["custom_metrics"]})
    stack = figures["stack"]
    counts = {**stack, "emf_metrics": len(metrics), "detailed_metrics": ASSUMED["detailed_metrics_per_route"]["value"]
              * stack["routes"], "shard_hours_a_month": stack["ingest_shards"] * ASSUMED["hours_a_month"]["value"]}
    why = {"metrics": ", ".join(metrics), "detailed": ASSUMED["detailed_metrics_per_route"]["why"]}
    rows = {r["item"]: {"count": counts[r["count"]], "usd": counts[r["count"]] * PRICES[r["price"]]["usd"],
                        "price": r["price"], "from": r["from"].format(**why)} for r in DATA["fixed_monthly"]}
    return {"rows": rows, "total": sum(r["usd"] for r in rows.values())}


def levers(figures: dict, base: float) -> list[dict]:
    """The same race with one thing changed: dollars, and what it costs the user."""
    return [{"lever": row["lever"], "total": total, "delta": total - base, "user_cost": row["user_cost"],
             "source": row["source"]}
            for row in DATA["levers"] for total in [race_cost(figures, row["change"])["total"]]]
