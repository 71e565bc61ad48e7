"""The bill of one race, every line from measured quantities, and the levers beside it.

The scenario of issue 12, as written: 1,000 racers, each bike posting its own one-sample request
every second for 300 s straight to the HTTP API; 1,000 viewers polling the live board every second
through CloudFront (the frontend's first page: the top 100). Each line's quantity is built from
``In`` values, each of which is one of:

- ``measured``: a figure of this run of ``make bench``, named by its path in docs/performance.json
  (``tests/unit/test_priced_quantities.py`` checks every path resolves to the value used);
- ``scenario``: what the scenario says (racers, seconds, viewers, the poll period);
- ``assumed``: anything else, with why (the report prints "assumed" beside it).

Lambda's billed duration (GB-seconds) is modelled, not measured, since nothing here runs on Lambda:
``ceil(CPU ms × 1,769 / memory MB + DynamoDB waves × round trip ms)`` per invocation. CPU ms is the
invocation's measured CPU time in its worker process (every thread, botocore's work included;
DynamoDB Local's own work is in another process, so not in it). Lambda gives a function CPU in
proportion to its memory, one full vCPU at 1,769 MB, so below that CPU time stretches by
1,769 / memory. A wave is a set of DynamoDB requests in flight together (measured); each costs one
round trip, whose length here is DynamoDB Local's on a shared machine, not DynamoDB's: assumed.
"""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import asdict, dataclass

from alleycat.routes import ROUTES
from stacks.settings import ACCESS_LOG_FIELDS, FINISHER, STREAM_PROCESSOR

SEEN = "2026-11-25"
P_API = "https://aws.amazon.com/api-gateway/pricing/"
P_LAMBDA = "https://aws.amazon.com/lambda/pricing/"
P_CF = "https://aws.amazon.com/cloudfront/pricing/"
P_DDB = "https://aws.amazon.com/dynamodb/pricing/on-demand/"
P_CW = "https://aws.amazon.com/cloudwatch/pricing/"
P_XRAY = "https://aws.amazon.com/xray/pricing/"
P_IOT = "https://aws.amazon.com/iot-core/pricing/"
P_APPSYNC = "https://aws.amazon.com/appsync/pricing/"

# us-east-1 list prices, free tiers and flat-rate plans left out. "seen": where the figure was read
# on SEEN (a stored copy of the page or a dated page quoting it); "list" where only the published
# list price known from the page is given — check those pages before quoting.
PRICES = {
    "http_api_request": {"usd": 1.00e-6, "unit": "request (first 300 M a month)", "page": P_API, "seen": "list"},
    "lambda_request": {"usd": 0.20e-6, "unit": "request", "page": P_LAMBDA, "seen": "list"},
    "lambda_arm64_gb_second": {"usd": 0.0000133334, "unit": "GB-second, arm64 (INIT billed the same since 2025-08-01: AWS Compute Blog, 'AWS Lambda standardizes billing for INIT phase')", "page": P_LAMBDA, "seen": "list"},
    "cloudfront_https_request": {"usd": 0.0100 / 10_000, "unit": "HTTPS request, North America", "page": P_CF, "seen": "list"},
    "origin_shield_request": {"usd": 0.0075 / 10_000, "unit": "request reaching Origin Shield (us-east-1)", "page": P_CF, "seen": "list"},
    "cloudfront_gb_out": {"usd": 0.085, "unit": "GB to viewers, North America, first 10 TB", "page": P_CF, "seen": "list"},
    "dynamodb_wru": {"usd": 0.625e-6, "unit": "write request unit, on demand (after the 2024-11-01 cut)", "page": P_DDB, "seen": "list"},
    "dynamodb_rru": {"usd": 0.125e-6, "unit": "read request unit, on demand", "page": P_DDB, "seen": "list"},
    "logs_gb_ingested": {"usd": 0.50, "unit": "GB ingested, Standard class (Lambda's tiered vended-log price starts at the same $0.50 since 2025-05-01)", "page": P_CW, "seen": "hykell.com and duckbillgroup.com pages quoting it, 2026"},
    "logs_gb_month_stored": {"usd": 0.03, "unit": "GB-month stored (groups keep a month)", "page": P_CW, "seen": "hykell.com, 2026"},
    "xray_trace": {"usd": 5.00e-6, "unit": "trace recorded", "page": P_XRAY, "seen": "stored copy of the page (de, cn, vi): 0.000005 USD a trace"},
    "custom_metric_month": {"usd": 0.30, "unit": "custom metric a month (first 10,000)", "page": P_CW, "seen": "signoz.io, 2026-02"},
    "alarm_month": {"usd": 0.10, "unit": "standard-resolution alarm metric a month", "page": P_CW, "seen": "list"},
    "dashboard_month": {"usd": 3.00, "unit": "custom dashboard a month", "page": P_CW, "seen": "factualminds.com, 2026-06"},
    "iot_connection_minute": {"usd": 0.08e-6, "unit": "connection-minute", "page": P_IOT, "seen": "worked example on the stored page copy"},
    "iot_rule_triggered": {"usd": 0.15e-6, "unit": "rule triggered (Basic Ingest: no messaging charge)", "page": P_IOT, "seen": "list"},
    "iot_action_executed": {"usd": 0.15e-6, "unit": "rule action executed", "page": P_IOT, "seen": "list"},
    "appsync_event_operation": {"usd": 1.00e-6, "unit": "Event API operation (a publish, each delivery)", "page": P_APPSYNC, "seen": "list"},
    "appsync_connection_minute": {"usd": 0.08e-6, "unit": "connection-minute", "page": P_APPSYNC, "seen": "list"},
    "scheduler_invocation": {"usd": 1.00e-6, "unit": "EventBridge Scheduler invocation (after 14 M free a month)",
                             "page": "https://aws.amazon.com/eventbridge/pricing/", "seen": "list"},
    "data_transfer_gb_out": {"usd": 0.09, "unit": "GB out of the region to the internet (AppSync's WebSocket traffic)", "page": "https://aws.amazon.com/ec2/pricing/on-demand/", "seen": "list"},
}

# The scenario (issue 12), as written.
RACERS, SECONDS, VIEWERS, POLL_SECONDS, BIKE_PERIOD = 1000, 300, 1000, 1, 1
FULL_VCPU_MB = 1769  # Lambda: one vCPU's worth of CPU at 1,769 MB (Lambda developer guide, "memory and computing power")

ASSUMED = {
    "dynamodb_round_trip_ms": (5.0, "DynamoDB Local on this shared 2-core machine is not DynamoDB; AWS states "
                               "single-digit milliseconds in region, so one round trip (a wave) is taken as 5 ms"),
    "lambda_vcpu_vs_this_core": (1.0, "a Graviton (arm64) vCPU taken as fast as one core of this machine for "
                                 "Python; not measured here"),
    "stream_shards": (4, "S, the stream shards carrying the race's records in the same second: a new on-demand "
                      "table starts with capacity for 4,000 write units a second (4 partitions of 1,000), and each "
                      "partition is one stream shard; an older, larger table has more (docs/capacity.md)"),
    "regional_edge_caches": (13, "all of CloudFront's regional edge caches, viewers spread worldwide (the most "
                             "Origin Shield sees; viewers in one region reach 1–2)"),
    "telemetry_cold_starts": (1000, "every bike's first post lands in the race's first second: one execution "
                              "environment each (the most; bikes out of step need ~15)"),
    "join_cold_starts": (100, "1,000 joins in the last ~10 s before the start, ~100 at once"),
    "stream_cold_starts": (4, "one execution environment per stream shard (S)"),
    "leaderboard_cold_starts": (1, "one origin fetch a second keeps one environment warm"),
    "log_event_overhead_bytes": (26, "CloudWatch Logs sizes a log event as its UTF-8 bytes plus 26 "
                                 "(PutLogEvents' batch rule), taken as what ingestion bills"),
    "viewer_header_bytes": (100, "a poll's response headers after HTTP/2 header compression on a kept-alive "
                            "connection (CloudFront bills headers as data out); not measured"),
    "telemetry_traces": (0, "post_telemetry is PassThrough: traced only when its caller sent a sampled X-Ray "
                         "header (the route's sampling rule decides for samplers that ask X-Ray); bikes send none"),
    "access_log_user_agent": ("alleycat-bike/1.0 (firmware 2.3.1)", "a bike's User-Agent (the access log keeps it)"),
    "access_log_ip": ("203.0.113.195", "an IPv4 address (IPv6 would add ~20 bytes)"),
    "access_log_request_id": ("V2xKbiZ0IAMEVdw=", "API Gateway's request id: 16 characters"),
    "detailed_metrics_per_route": (6, "API Gateway's per-route (detailed) metrics: Count, Latency, IntegrationLatency, "
                                   "DataProcessed, 4xx, 5xx; API Gateway's pricing page says detailed metrics are "
                                   "charged at CloudWatch's custom-metric rate"),
    "xray_default_reservoir": (1, "Lambda's own sampling of an Active function: 1 request a second and 5 % of the "
                               "rest, not configurable (Lambda developer guide, X-Ray)"),
    "brotli_quality": (5, "CloudFront compresses with Brotli for browsers that accept it and does not publish "
                       "its level: quality 5 taken (4–6 is usual on the fly); gzip's size is in section 5 too"),
    "appsync_metered_kb": (5, "AppSync meters a real-time message in 5 KB steps (its pricing page says so of "
                           "GraphQL subscriptions; taken as the same for Event API deliveries)"),
    "appsync_keep_alive_s": (60, "AppSync sends a 'ka' about once a minute; each counted as an operation (an upper "
                             "bound: the pricing page does not say keep-alives are billed)"),
    "viewers_connected_before_start_s": (60, "viewers open the race page a minute before the start"),
    "publish_ms": (15, "the stream processor's time per publish in AWS: one consistent board Query and one HTTPS "
                   "POST, races in parallel; not measured on Lambda"),
    "finisher_wait_s": (50.0, "the finisher's mean wait for the race's end plus its grace (alleycat.ending): its "
                        "schedule names the minute of end - 40 s, Scheduler invokes somewhere in that minute and the "
                        "finisher waits for end + 10 s; end and delivery uniform: 50 s (110 s at most, "
                        "tests/unit/test_ending.py); billed at 128 MB"),
    "catalog_card_wru": (2 + 1 + 4 + 2 + 2 * 10, "the race's card (docs/capacity.md, the catalog): put in the "
                         "race's creating transaction (2 WRU) and its index entry (1), moved by the finishing one "
                         "(delete + put: 4) and its index (2), and synced from the race by the stream once per "
                         "invocation that saw joins: ~10 s of joins, one a second (a race's records are on one "
                         "shard), each a write and an index write"),
    "jwt_verify_cpu_ms": (1.0, "verifying a Cognito JWT (RS256) in the function, as a function URL needs; not "
                          "measured"),
}


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


class Figures:
    """Reads measured values out of the run's figures by their path in performance.json."""

    def __init__(self, figures: dict):
        self.figures = figures

    def m(self, path: str, name: str | None = None) -> In:
        return In(name or path.rsplit(".", 1)[-1], resolve(self.figures, path), "measured", path)


def resolve(figures: dict, path: str):
    value = figures
    for part in path.split("."):
        value = value[part] if part in value else value[int(part)] if part.isdigit() and int(part) in value else value[part]
    return value


def a(name: str, **override) -> In:
    value, why = ASSUMED[name]
    return In(name, override.get("value", value), "assumed", why)


def s(name: str, value, words: str) -> In:
    return In(name, value, "scenario", words)


def line(item: str, quantity: float, unit: str, price: str, inputs: list[In], note: str = "") -> dict:
    usd = quantity * PRICES[price]["usd"]
    return {"item": item, "quantity": quantity, "unit": unit, "price": price, "usd": usd,
            "inputs": [asdict(i) for i in inputs], "note": note}


def cpu_scale(memory_mb: int) -> float:
    return max(1.0, FULL_VCPU_MB / memory_mb)


def billed_ms(cpu_ms: float, waves: float, memory_mb: int, round_trip: float, vcpu: float) -> int:
    """One invocation's billed duration: its CPU at the function's share of a vCPU, plus its waits."""
    return math.ceil(cpu_ms * vcpu * cpu_scale(memory_mb) + waves * round_trip)


def access_log_bytes(response_bytes: int, racer_id: str, race_id: str, latency_ms: int) -> int:
    """The HTTP API's access-log line for a bike's post, rendered from the stack's format."""
    values = {
        "$context.requestId": ASSUMED["access_log_request_id"][0], "$context.identity.sourceIp": ASSUMED["access_log_ip"][0],
        "$context.requestTime": "25/Nov/2026:10:00:00 +0000", "$context.requestTimeEpoch": "1795600800000",
        "$context.httpMethod": "POST",
        "$context.routeKey": "POST /races/{raceId}/telemetry", "$context.path": f"/races/{race_id}/telemetry",
        "$context.status": "200", "$context.protocol": "HTTP/1.1", "$context.responseLength": str(response_bytes),
        "$context.responseLatency": str(latency_ms + 2), "$context.integrationLatency": str(latency_ms),
        "$context.integrationErrorMessage": "-", "$context.authorizer.error": "-",
        "$context.authorizer.claims.sub": racer_id, "$context.identity.userAgent": ASSUMED["access_log_user_agent"][0],
    }
    return len(json.dumps({k: values[v] for k, v in ACCESS_LOG_FIELDS.items()}).encode())


def race_cost(figures: dict, memory_mb: dict, levers: dict | None = None) -> dict:
    """The race's bill, line by line; ``levers`` changes the scenario for the lever table."""
    levers = levers or {}
    f = Figures(figures)
    B = "race_day.bikes"
    bike_period = levers.get("bike_period", BIKE_PERIOD)
    poll_seconds = levers.get("poll_seconds", POLL_SECONDS)
    racers, seconds, viewers = s("racers", RACERS, "1,000 racers"), s("seconds", SECONDS, "a 300-second race"), \
        s("viewers", VIEWERS, "1,000 viewers")
    posts = s("telemetry posts", RACERS * SECONDS // bike_period,
              f"each bike posts its own samples every {bike_period} s ({bike_period} a request)")
    polls = s("viewer polls", VIEWERS * SECONDS // poll_seconds, f"each viewer polls the board every {poll_seconds} s")
    S = a("stream_shards")
    rtt, vcpu = a("dynamodb_round_trip_ms"), a("lambda_vcpu_vs_this_core")
    pages = resolve(figures, f"{B}.pages")
    page = "100" if "100" in pages else min(pages, key=int)  # a quick run's race has fewer racers than a page
    page_rcu = f.m(f"{B}.pages.{page}.rcu", "board read RCU (top 100)")
    page_bytes = f.m(f"{B}.pages.{page}.brotli_bytes", "top-100 page, Brotli (as CloudFront sends browsers)")
    origin_per_s = s("origin fetches a second", 1, "Origin Shield: one origin request per cached answer per "
                     "max-age (the open board's 1 s), the top 100 being the one answer every viewer asks")
    origin = origin_per_s.value * SECONDS
    recs = a("regional_edge_caches")
    joins = racers.value
    push = levers.get("push")
    url = levers.get("function_url")
    iot = levers.get("iot_basic_ingest")

    tele = {k: f.m(f"{B}.post_telemetry.{k}.mean" if k in ("cpu_ms",) else f"{B}.post_telemetry.{k}", k)
            for k in ("cpu_ms", "waves", "rcu", "wcu", "log_bytes", "log_events")}
    join = {k: f.m(f"{B}.join_race.{k}.mean" if k == "cpu_ms" else f"{B}.join_race.{k}", k)
            for k in ("cpu_ms", "waves", "rcu", "log_bytes", "log_events")}
    stream = {k: f.m(f"{B}.stream_processor.{k}.mean" if k == "cpu_ms" else f"{B}.stream_processor.{k}", k)
              for k in ("cpu_ms", "waves", "rcu", "log_bytes", "log_events", "board_wcu_per_invocation",
                        "records_per_invocation")}
    board = {k: f.m(f"{B}.pages.{page}.{k}.mean" if k == "cpu_ms" else f"{B}.pages.{page}.{k}", k)
             for k in ("cpu_ms", "waves", "log_bytes", "log_events")}
    lines = []

    # --- requests ---------------------------------------------------------------------------
    api_posts = 0 if (url or iot) else posts.value
    api = api_posts + joins + (0 if push else origin)
    lines.append(line("HTTP API requests (telemetry, joins, board origin fetches)", api, "requests", "http_api_request",
                      [posts, racers, origin_per_s, seconds],
                      "telemetry through a function URL or IoT Core instead" if (url or iot) else ""))
    if not push:
        lines.append(line("CloudFront requests (viewers' polls)", polls.value, "requests", "cloudfront_https_request", [polls]))
        lines.append(line("Origin Shield requests (each regional edge cache's miss)", recs.value * origin, "requests",
                          "origin_shield_request", [recs, origin_per_s, seconds]))
        header = a("viewer_header_bytes")
        gb = polls.value * (page_bytes.value + header.value) / 1e9
        lines.append(line("CloudFront data out (the top-100 page, Brotli)", gb, "GB", "cloudfront_gb_out",
                          [polls, page_bytes, a("brotli_quality"), header]))
    else:
        lines += pushed_lines(figures, f, S, viewers, seconds, page_bytes, levers)
    if iot:
        minutes = RACERS * (SECONDS / 60 + 1)
        lines.append(line("IoT Core connection-minutes (bikes on MQTT)", minutes, "minutes", "iot_connection_minute", [racers, seconds]))
        lines.append(line("IoT Core rules triggered (Basic Ingest)", posts.value, "rules", "iot_rule_triggered", [posts]))
        lines.append(line("IoT Core rule actions (Lambda)", posts.value, "actions", "iot_action_executed", [posts]))

    # --- Lambda -----------------------------------------------------------------------------
    invocations_per_second = S.value  # each stream shard invokes once a second (1 s batching window)
    stream_calls = invocations_per_second * SECONDS
    lambda_requests = posts.value + joins + (0 if push else origin) + stream_calls + 2  # + the finisher: started, scheduled
    lines.append(line("Lambda requests", lambda_requests, "invocations", "lambda_request", [posts, racers, origin_per_s, S, seconds]))
    lines.append(line("EventBridge Scheduler invocations (the race's finish at its end)", 1, "invocations",
                      "scheduler_invocation", [s("schedules", 1, "one one-time schedule per race")]))

    def gbs(function: str, count: float, cpu_ms: float, waves: float) -> float:
        return count * billed_ms(cpu_ms, waves, memory_mb[function], rtt.value, vcpu.value) / 1000 * memory_mb[function] / 1024

    tele_cpu = tele["cpu_ms"].value + (a("jwt_verify_cpu_ms").value if url else 0)
    # The stream's work per second is the measured invocation's (1,000 records) split over S shards:
    # its CPU in total, its waves once per shard.
    # A smaller replay (a quick run) is scaled to the scenario's racers: 1.0 at full size.
    per_racer = RACERS / stream["records_per_invocation"].value
    stream_gbs = SECONDS * S.value * billed_ms(stream["cpu_ms"].value * per_racer / S.value, stream["waves"].value,
                                                memory_mb[STREAM_PROCESSOR], rtt.value, vcpu.value) / 1000 \
        * memory_mb[STREAM_PROCESSOR] / 1024
    per_function = {
        "post_telemetry": gbs("post_telemetry", posts.value, tele_cpu, tele["waves"].value),
        "join_race": gbs("join_race", joins, join["cpu_ms"].value, join["waves"].value),
        "get_race_leaderboard": 0 if push else gbs("get_race_leaderboard", origin, board["cpu_ms"].value, board["waves"].value),
        STREAM_PROCESSOR: stream_gbs + (publishes(figures, S, levers) * a("publish_ms").value / 1000
                                        * memory_mb[STREAM_PROCESSOR] / 1024 if push else 0),
        FINISHER: a("finisher_wait_s").value * memory_mb[FINISHER] / 1024,
    }
    lines.append(line("Lambda duration (" + ", ".join(f"{k} {v:,.0f}" for k, v in per_function.items()) + " GB-s)",
                      sum(per_function.values()), "GB-seconds", "lambda_arm64_gb_second",
                      [tele["cpu_ms"], tele["waves"], join["cpu_ms"], join["waves"], board["cpu_ms"], board["waves"],
                       stream["cpu_ms"], stream["waves"], stream["records_per_invocation"], rtt, vcpu, S, posts,
                       a("finisher_wait_s"), *([a("publish_ms")] if push else [])]))

    cold = figures.get("cold_start", {})
    start_cpu = f.m("interpreter_start.cpu_ms", "interpreter start CPU ms")
    init_inputs, init_gbs = [start_cpu, vcpu], 0.0
    for function, key in (("post_telemetry", "telemetry_cold_starts"), ("join_race", "join_cold_starts"),
                          (STREAM_PROCESSOR, "stream_cold_starts"), ("get_race_leaderboard", "leaderboard_cold_starts")):
        if function not in cold or (push and function == "get_race_leaderboard"):
            continue
        count = a(key, value=S.value) if key == "stream_cold_starts" else a(key)
        imp = f.m(f"cold_start.{function}.import_cpu_ms", f"{function} import CPU ms")
        first = f.m(f"cold_start.{function}.first_request_cpu_ms", f"{function} first request CPU ms")
        ms = (start_cpu.value + imp.value + first.value) * vcpu.value * cpu_scale(memory_mb[function])
        init_gbs += count.value * math.ceil(ms) / 1000 * memory_mb[function] / 1024
        init_inputs += [count, imp, first]
    lines.append(line("Lambda INIT and first requests (cold starts)", init_gbs, "GB-seconds", "lambda_arm64_gb_second",
                      init_inputs, "INIT billed since 2025-08-01; the first request's extra CPU (botocore's first call) too"))

    # --- DynamoDB ---------------------------------------------------------------------------
    wcu_racer_second = f.m("race_day.wcu_per_racer_second", "WCU per racer-second (replayed, S = 1)")
    board_wcu = stream["board_wcu_per_invocation"]
    join_wcu = f.m("race_day.join_wcu_total", "join WCU (all 1,000)")
    finish = f.m("race_day.finish.wcu", "settling WCU"), f.m("race_day.finish.index_wcu", "settling index WCU")
    racer_seconds = RACERS * SECONDS
    # A request of two samples writes its chunk once (one unit: a chunk stays under 1 KB).
    chunk_writes = racer_seconds - posts.value
    wru = (wcu_racer_second.value * racer_seconds - chunk_writes + (S.value - 1) * board_wcu.value * SECONDS
           + join_wcu.value + finish[0].value + finish[1].value + a("catalog_card_wru").value)
    lines.append(line("DynamoDB write request units", wru, "WRU", "dynamodb_wru",
                      [wcu_racer_second, board_wcu, S, join_wcu, *finish, a("catalog_card_wru"), racers, seconds, posts],
                      f"board writes grow with S: {board_wcu.value:.0f} WCU per invocation × S × {SECONDS} s"))
    tele_rru = posts.value * tele["rcu"].value
    stream_rru = SECONDS * stream["rcu"].value * per_racer
    finish_rcu = f.m("race_day.finish.rcu", "settling RCU")
    board_rcu = f.m("race_day.leaderboard_read_rcu", "the whole board read (eventually consistent)")
    viewers_rru = publishes(figures, S, levers) * 2 * board_rcu.value if push else origin * page_rcu.value
    rru = tele_rru + stream_rru + viewers_rru + joins * join["rcu"].value + finish_rcu.value
    lines.append(line(f"DynamoDB read request units (telemetry {tele_rru:,.0f}, stream {stream_rru:,.0f}, viewers, "
                      "joins, settling)", rru, "RRU", "dynamodb_rru",
                      [posts, tele["rcu"], stream["rcu"], stream["records_per_invocation"], page_rcu, origin_per_s,
                       join["rcu"], finish_rcu, board_rcu],
                      "pushed: the publisher reads the whole board, strongly consistent, once a message" if push else ""))

    # --- observability -----------------------------------------------------------------------
    overhead = a("log_event_overhead_bytes")
    lambda_log = (posts.value * (tele["log_bytes"].value + tele["log_events"].value * overhead.value)
                  + joins * (join["log_bytes"].value + join["log_events"].value * overhead.value)
                  + stream_calls * (stream["log_bytes"].value + stream["log_events"].value * overhead.value)
                  + (0 if push else origin * (board["log_bytes"].value + board["log_events"].value * overhead.value)))
    response_bytes = f.m(f"{B}.telemetry_response_bytes", "telemetry answer bytes")
    race_id = f.m(f"{B}.race_id", "race id")
    racer_id = f.m(f"{B}.example_racer", "racer id (a Cognito sub)")
    access_line = access_log_bytes(response_bytes.value, racer_id.value, race_id.value,
                                   billed_ms(tele["cpu_ms"].value, tele["waves"].value, memory_mb["post_telemetry"], rtt.value, vcpu.value))
    access = (api_posts + joins + (0 if push else origin)) * (access_line + overhead.value)
    log_gb = (lambda_log + access) / 1e9
    ua, ip, rid = a("access_log_user_agent"), a("access_log_ip"), a("access_log_request_id")
    lines.append(line(f"CloudWatch Logs ingested (functions {lambda_log / 1e6:,.1f} MB; access log "
                      f"{access / 1e6:,.1f} MB, {access_line} B a line)", log_gb, "GB", "logs_gb_ingested",
                      [tele["log_bytes"], tele["log_events"], join["log_bytes"], stream["log_bytes"], stream["log_events"],
                       board["log_bytes"], overhead, response_bytes, racer_id, ua, ip, rid, posts]))
    lines.append(line("CloudWatch Logs stored (a month's retention, uncompressed: the most)", log_gb, "GB-months",
                      "logs_gb_month_stored", [tele["log_bytes"], overhead]))

    reservoir = a("xray_default_reservoir")

    def sampled(rate_per_second: float, duration: float) -> float:
        return duration * (min(rate_per_second, reservoir.value) + 0.05 * max(0.0, rate_per_second - reservoir.value))

    traces = (a("telemetry_traces").value + sampled(S.value, SECONDS)
              + sampled(joins / 10, 10) + (0 if push else sampled(origin_per_s.value, SECONDS)))
    lines.append(line("X-Ray traces (Active functions at Lambda's fixed sampling)", traces, "traces", "xray_trace",
                      [a("telemetry_traces"), reservoir, S, racers, origin_per_s, seconds]))

    total = sum(l["usd"] for l in lines)
    return {"lines": lines, "total": total, "access_log_line_bytes": access_line,
            "per_function_gb_seconds": per_function, "levers": levers}


def publishes(figures: dict, S: In, levers: dict) -> float:
    """Board messages a race publishes: one per stream invocation that wrote its board, measured on one
    shard (bench/push.py); each of the S shards' invocations publishes its own, unless the lever
    ``push_coalesced`` holds a race to one message a second across shards (not built)."""
    per_second = figures["push"]["messages_per_second"] * S.value
    return (min(per_second, 1.0) if levers.get("push_coalesced") else per_second) * SECONDS


def pushed_lines(figures: dict, f: Figures, S: In, viewers: In, seconds: In, page_bytes: In,
                 levers: dict) -> list[dict]:
    """The viewers' side of a race with boards pushed over AppSync Events (issue 19), from the
    messages measured on `make local` (bench/push.py)."""
    rate = f.m("push.messages_per_second", "board messages a second per race, one stream shard")
    size = f.m("push.bytes_per_message", "bytes a board message")
    metered_kb, before, ka = a("appsync_metered_kb"), a("viewers_connected_before_start_s"), a("appsync_keep_alive_s")
    sent = publishes(figures, S, levers)
    deliveries = sent * VIEWERS
    steps = max(1, math.ceil(size.value / (metered_kb.value * 1024)))
    connected = VIEWERS * (SECONDS + before.value)
    operations = (sent + deliveries) * steps + 2 * VIEWERS + connected / ka.value  # + a connect and a subscribe each
    envelope = len(json.dumps({"type": "data", "id": "00000000-0000-0000-0000-000000000000", "event": ""}))
    first_reads = s("first paints", 2 * VIEWERS, "each viewer reads the board over HTTP twice: first paint, and "
                    "again on subscribing")
    return [
        line(f"AppSync Events operations ({sent:,.0f} publishes, each delivered to every viewer, metered in "
             f"{steps} step(s); connects, subscribes, keep-alives)", operations, "operations", "appsync_event_operation",
             [rate, S, seconds, viewers, size, metered_kb, before, ka]),
        line("AppSync Events connection-minutes", connected / 60, "minutes", "appsync_connection_minute",
             [viewers, seconds, before]),
        line("AppSync data out (the board messages)", deliveries * (size.value + envelope) / 1e9, "GB",
             "data_transfer_gb_out", [rate, S, size, viewers]),
        line("CloudFront requests (first paints)", first_reads.value, "requests", "cloudfront_https_request",
             [first_reads]),
        line("CloudFront data out (first paints: the top-100 page, Brotli)", first_reads.value * page_bytes.value / 1e9,
             "GB", "cloudfront_gb_out", [first_reads, page_bytes]),
    ]


def alarm_count(functions: list[str]) -> int:
    """The stack's alarms (stacks/monitoring.py): errors and throttles per function, the stream's
    iterator age and failure queue, the finishes' failure queue, the API's 5xx. tests/infrastructure
    checks the template has these."""
    return 2 * len(functions) + 2 + 1 + 1


def fixed_monthly(figures: dict, functions: list[str]) -> dict:
    """What the stack costs a month whether or not anyone races: alarms, the dashboard, custom metrics."""
    api_functions = [r.function for r in ROUTES]
    alarms = alarm_count(functions)
    emf = figures["race_day"]["bikes"]["custom_metrics"]
    metrics = {
        "alarms": (alarms, "alarm_month", "counted from stacks/monitoring.py (tests/infrastructure checks the template)"),
        "dashboards": (1, "dashboard_month", "the race-day dashboard"),
        "custom metrics (EMF, seen in this run)": (len(emf), "custom_metric_month", ", ".join(sorted(emf))),
        "custom metrics (ColdStart, one per API function)": (len(api_functions), "custom_metric_month",
                                                             "Powertools' cold-start metric, dimension function_name"),
        "API Gateway detailed metrics (assumed billable)": (ASSUMED["detailed_metrics_per_route"][0] * len(ROUTES),
                                                            "custom_metric_month", ASSUMED["detailed_metrics_per_route"][1]),
    }
    rows = {k: {"count": n, "usd": n * PRICES[p]["usd"], "price": p, "from": why} for k, (n, p, why) in metrics.items()}
    return {"rows": rows, "total": sum(r["usd"] for r in rows.values())}


def levers(figures: dict, memory_mb: dict, base: float) -> list[dict]:
    """The same race with one thing changed: dollars, and what it costs the user."""
    rows = [
        ("Bikes post every 2 s (two samples a request)", {"bike_period": 2},
         "the board and a rider's own figures are up to 1 s staler; a bike holds one sample; a lost request loses two",
         "this bench's per-request figures (one-sample requests measured; two samples assumed to cost the same)"),
        ("Viewers poll every 2 s", {"poll_seconds": 2},
         "a viewer's board is up to 1 s older when shown (the API still answers within the contract's 2 s; the "
         "browser asks half as often)",
         "this bench; CloudFront's prices"),
        ("Pushed board updates (AppSync Events, as built: a message per race per stream invocation)", {"push": True},
         "a fresher board (section 7); a WebSocket per viewer; every shard's invocation reaches every viewer",
         "AppSync's price page; messages a second and bytes a message measured on make local (section 7)"),
        ("Pushed, coalesced to one message a second per race across the S shards (not built)",
         {"push": True, "push_coalesced": True},
         "a change waits up to a second longer for the next message (a per-race, per-second conditional write "
         "decides which shard's invocation publishes: S writes a second, $0.001 a race)",
         "as above; the conditional writes left out"),
        ("A Lambda function URL for bikes", {"function_url": True},
         "no Cognito JWT authorizer, throttle or access log in front: the function verifies the token (assumed "
         "1 ms CPU), reserved concurrency stands in for the throttle; bikes need a second endpoint",
         "Lambda's price page (function URLs cost nothing beyond Lambda)"),
        ("IoT Core Basic Ingest for bikes (MQTT, a rule invoking the function)", {"iot_basic_ingest": True},
         "bikes need an MQTT client and a device identity (X.509 or a custom authorizer); no per-request answer "
         "(accepted/duplicates): the rule invokes the function asynchronously; new IoT policy and rule to run",
         "IoT Core's price page; Basic Ingest: IoT Core developer guide, 'Reducing messaging costs with Basic Ingest'"),
    ]
    out = []
    for name, change, user_cost, source in rows:
        if change.get("push") and "push" not in figures:  # the push stage did not run
            continue
        cost = race_cost(figures, memory_mb, change)
        out.append({"lever": name, "total": cost["total"], "delta": cost["total"] - base, "user_cost": user_cost,
                    "source": source})
    return out


def brotli_size(body: bytes) -> int:
    """Brotli at quality 5 (assumed: CloudFront does not publish its level; 4–6 is usual for compressing
    on the fly)."""
    import brotli

    return len(brotli.compress(body, quality=ASSUMED["brotli_quality"][0]))


def gzip_size(body: bytes) -> int:
    return len(gzip.compress(body))
