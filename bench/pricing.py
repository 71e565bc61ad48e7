"""Cost of one race at on-demand list prices (us-east-1, as last known: early 2025)."""

from __future__ import annotations

PRICES = {
    "as_of": "us-east-1 list prices as last known in early 2025 (DynamoDB on-demand after the Nov 2024 cut); check the AWS pricing pages",
    "dynamodb_write_request_unit_per_million": 0.625,
    "dynamodb_read_request_unit_per_million": 0.125,
    "lambda_request_per_million": 0.20,
    "lambda_arm64_gb_second": 0.0000133334,
    "api_gateway_rest_request_per_million": 3.50,
}
DYNAMODB_LATENCY_MS = 5  # assumed per request from Lambda in-region; DynamoDB Local's latency is not DynamoDB's
API_MEMORY_GB, STREAM_MEMORY_GB = 0.25, 1.0  # stacks/functions.py and stacks/stream.py
VIEWERS, POLL_SECONDS = 1000, 2


def race_cost(race: dict, overhead: dict, racers: int, seconds: int) -> dict:
    """Requests, units and dollars of one race when every racer posts its own sample each second."""
    telemetry = racers * seconds
    polls = VIEWERS * seconds // POLL_SECONDS
    api_requests = telemetry + polls + racers
    ops = race["per_second_by_operation"]
    steady_wcu = sum(o["wcu"] + o["index_wcu"] for o in ops.values())
    stream_calls = race["stream_invocations_per_second"] * seconds
    stream_requests = sum(o["requests"] for op, o in ops.items() if op != "Query") / race["stream_invocations_per_second"]
    wru = race["join_wcu_total"] + steady_wcu * seconds * race["late_race_factor"]
    entry_reads = ops.get("BatchGetItem", {}).get("rcu", 0) / racers  # per sample: the racer's entry
    rru = telemetry * (race["telemetry_query_rcu"] + entry_reads) + polls * race["leaderboard_read_rcu"]
    telemetry_ms = overhead["post_telemetry"]["p50_ms"] + 2 * DYNAMODB_LATENCY_MS
    viewer_ms = overhead["get_race_leaderboard"]["p50_ms"] + DYNAMODB_LATENCY_MS
    join_ms = overhead["join_race"]["p50_ms"] + 3 * DYNAMODB_LATENCY_MS
    stream_ms = 50 + stream_requests / 16 * DYNAMODB_LATENCY_MS  # 16 parallel writes per invocation
    gb_seconds = (API_MEMORY_GB * (telemetry * telemetry_ms + polls * viewer_ms + racers * join_ms)
                  + STREAM_MEMORY_GB * stream_calls * stream_ms) / 1000
    dollars = {
        "dynamodb_writes": wru / 1e6 * PRICES["dynamodb_write_request_unit_per_million"],
        "dynamodb_reads": rru / 1e6 * PRICES["dynamodb_read_request_unit_per_million"],
        "lambda_requests": (api_requests + stream_calls) / 1e6 * PRICES["lambda_request_per_million"],
        "lambda_duration": gb_seconds * PRICES["lambda_arm64_gb_second"],
        "api_gateway": api_requests / 1e6 * PRICES["api_gateway_rest_request_per_million"],
    }
    return {"api_requests": api_requests, "lambda_invocations": api_requests + stream_calls, "write_request_units": wru,
            "read_request_units": rru, "lambda_gb_seconds": gb_seconds, "dollars": dollars, "total": sum(dollars.values())}
