"""Cost of one race at on-demand list prices, in the race-day scenario of issue 12.

1,000 racers, each bike posting its own one-sample request every second for 300 s, straight
to the HTTP API; 1,000 viewers polling the race leaderboard every second through CloudFront,
whose cache (``Cache-Control: max-age=1``) sends the origin one request a second per cache
that fetches (Origin Shield: one). Units and durations come from the replay; prices below.
"""

from __future__ import annotations

PRICES = {
    "as_of": "us-east-1 list prices as published in 2025 (DynamoDB on-demand after the November 2024 cut, "
             "CloudFront pay-as-you-go, North America); free tiers and flat-rate plans ignored — check the AWS "
             "pricing pages before quoting",
    "dynamodb_write_request_unit_per_million": 0.625,
    "dynamodb_read_request_unit_per_million": 0.125,
    "lambda_request_per_million": 0.20,
    "lambda_arm64_gb_second": 0.0000133334,
    "http_api_request_per_million": 1.00,
    "cloudfront_https_request_per_million": 1.00,
    "cloudfront_origin_shield_request_per_million": 0.75,
    "cloudfront_transfer_out_per_gb": 0.085,
}
DYNAMODB_LATENCY_MS = 5  # assumed per request from Lambda in-region; DynamoDB Local's latency is not DynamoDB's
STREAM_INVOCATION_MS = 50  # assumed fixed cost of a stream invocation besides its DynamoDB requests
VIEWERS, POLL_SECONDS = 1000, 1
ORIGIN_FETCHES_PER_SECOND = 1  # Origin Shield collapses every edge's miss into one origin request per max-age


def race_cost(race: dict, overhead: dict, memory_mb: dict, racers: int, seconds: int) -> dict:
    """Requests, units and dollars of one race; ``memory_mb`` maps each function to its memory size."""
    samples = racers * seconds
    polls = VIEWERS * seconds // POLL_SECONDS
    origin_fetches = ORIGIN_FETCHES_PER_SECOND * seconds
    api_requests = samples + racers + origin_fetches  # telemetry, joins, leaderboard misses
    stream_calls = race["stream_invocations_per_second"] * seconds
    stream_requests = race["stream_requests_per_invocation"]

    wru = race["join_wcu_total"] + race["wcu_per_racer_second"] * samples + race["finish"].get("wcu", 0) \
        + race["finish"].get("index_wcu", 0)
    # Replayed: one request a second carrying every racer. A bike's own request reads two keys, a
    # gate copy and its entry, at the replay's units per key; the stream's reads are as replayed.
    telemetry_rru = samples * 2 * race["telemetry_rcu_per_key"]
    stream_rru = race["stream_rcu_per_second"] * seconds
    viewer_rru = origin_fetches * race["leaderboard_read_rcu"]
    rru = telemetry_rru + stream_rru + viewer_rru + race["finish"].get("rcu", 0)

    def gb_seconds(function: str, count: float, ms: float) -> float:
        return memory_mb[function] / 1024 * count * ms / 1000

    lambda_gbs = {
        "post_telemetry": gb_seconds("post_telemetry", samples, overhead["post_telemetry"]["p50_ms"] + 2 * DYNAMODB_LATENCY_MS),
        "get_race_leaderboard": gb_seconds("get_race_leaderboard", origin_fetches,
                                           race["leaderboard_1000_ms"] + DYNAMODB_LATENCY_MS),
        "join_race": gb_seconds("join_race", racers, overhead["join_race"]["p50_ms"] + 3 * DYNAMODB_LATENCY_MS),
        "stream_processor": gb_seconds("stream_processor", stream_calls,
                                       STREAM_INVOCATION_MS + stream_requests / 16 * DYNAMODB_LATENCY_MS),
    }
    transfer_gb = polls * race["leaderboard_gzip_bytes"] / 1e9
    dollars = {
        "http_api": api_requests / 1e6 * PRICES["http_api_request_per_million"],
        "cloudfront_requests": polls / 1e6 * PRICES["cloudfront_https_request_per_million"]
        + origin_fetches / 1e6 * PRICES["cloudfront_origin_shield_request_per_million"],
        "cloudfront_transfer": transfer_gb * PRICES["cloudfront_transfer_out_per_gb"],  # viewers' GETs send no body
        "lambda_requests": (api_requests + stream_calls) / 1e6 * PRICES["lambda_request_per_million"],
        "lambda_duration": sum(lambda_gbs.values()) * PRICES["lambda_arm64_gb_second"],
        "dynamodb_writes": wru / 1e6 * PRICES["dynamodb_write_request_unit_per_million"],
        "dynamodb_reads": rru / 1e6 * PRICES["dynamodb_read_request_unit_per_million"],
    }
    return {"samples": samples, "viewer_polls": polls, "origin_fetches": origin_fetches, "api_requests": api_requests,
            "lambda_invocations": api_requests + stream_calls, "write_request_units": wru, "read_request_units": rru,
            "read_units_by_reader": {"telemetry": telemetry_rru, "stream": stream_rru, "viewers": viewer_rru},
            "lambda_gb_seconds": lambda_gbs, "transfer_out_gb": transfer_gb, "dollars": dollars,
            "total": sum(dollars.values()), "floor": floor(samples)}


def floor(samples: int) -> dict:
    """What the scenario costs at the least: each sample one HTTP API request, one Lambda request and
    one write unit, whatever the design."""
    per_sample = (PRICES["http_api_request_per_million"] + PRICES["lambda_request_per_million"]
                  + PRICES["dynamodb_write_request_unit_per_million"]) / 1e6
    return {"per_sample": per_sample, "total": per_sample * samples}
