"""`python -m bench.page_keys`: what the first read of the page-token keys adds to a paged function's cold start.

Each run is a fresh python3.13 interpreter (the layer on its path; bytecode compiled by a first run not counted, as
Lambda's runtime and the layer ship it) that does what a paged
function does before its first token: makes its DynamoDB client, then calls ``page_keys.keys()``: a Secrets
Manager client (botocore's model of the service loaded) and one GetSecretValue, here against the local stand-in
on loopback. Printed: the median and the worst of ``RUNS`` runs, for the client, the request and a second
``keys()`` (the cached ring). Deployed, the request also crosses to Secrets Manager's regional endpoint
(a new TLS connection): not measured here.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from local.secrets_manager import page_token_keys
from stacks import python313

ROOT = Path(__file__).resolve().parent.parent
RUNS = int(os.environ.get("BENCH_RUNS", "9"))
CHILD = """
import json, time
start = time.perf_counter()
from alleycat.storage import dynamo
dynamo.client()
made_dynamodb = time.perf_counter()
from alleycat.aws import clients, page_keys
clients.client("secretsmanager")
made_client = time.perf_counter()
page_keys.keys()
first = time.perf_counter()
page_keys.keys()
second = time.perf_counter()
print(json.dumps({"dynamodb_client_ms": (made_dynamodb - start) * 1e3, "secrets_client_ms": (made_client - made_dynamodb) * 1e3,
                  "first_read_ms": (first - made_client) * 1e3, "cached_ms": (second - first) * 1e3}))
"""


def main() -> None:
    region, credentials = "us-east-1", ("AKIDBENCH", "bench-secret")
    api, environment = page_token_keys("127.0.0.1", *credentials, region)
    child_environment = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "layers" / "alleycat" / "python"),
                         "AWS_ACCESS_KEY_ID": credentials[0], "AWS_SECRET_ACCESS_KEY": credentials[1],
                         "AWS_DEFAULT_REGION": region, **environment}
    python = python313.find_or_none() or sys.executable
    try:
        runs = [json.loads(subprocess.run([python, "-c", CHILD], env=child_environment, check=True,
                                          capture_output=True, text=True).stdout) for _ in range(RUNS + 1)][1:]
    finally:
        api.stop()
    print(f"page-token keys, first read in a fresh interpreter ({python}, {RUNS} runs; median / worst, ms):")
    for name in ("dynamodb_client_ms", "secrets_client_ms", "first_read_ms", "cached_ms"):
        values = [run[name] for run in runs]
        print(f"  {name:<20} {statistics.median(values):8.2f} {max(values):8.2f}")
    added = [run["secrets_client_ms"] + run["first_read_ms"] for run in runs]
    print(f"  added to the first page token of an execution environment: {statistics.median(added):.1f} ms median, "
          f"{max(added):.1f} ms worst (loopback; plus the round trip to Secrets Manager deployed)")


if __name__ == "__main__":
    main()
