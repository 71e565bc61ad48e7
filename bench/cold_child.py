"""One cold start, run in a fresh interpreter: ``python -m bench.cold_child <function|baseline> [event.json]``.

Prints one JSON line: milliseconds to import the handler (the layer on sys.path, as in
Lambda) and to serve its first request, and the response's status code. The baselines
(``BASELINES``) import boto3 and create a bare DynamoDB client; ``boto3_request`` then
sends the one request its file holds (``{"operation": ..., "request": {...}}``), as a
function's first call does: botocore loads the endpoint rules, signs, sends and parses.

Packages this machine has and Lambda's python runtime lacks (``NOT_IN_LAMBDA``) are hidden
from the child, so botocore imports what it imports in Lambda: with awscrt and pyOpenSSL
present it loads them too (~70 ms), which would pad the baseline and every function alike.
The collector runs at Lambda's python3.13 thresholds (``LAMBDA_GC_THRESHOLD``): at 3.11's
(700, 10, 10) the bare client ends one young collection short of the first full one, so any
function crossing it pays a 20-45 ms pass over boto3's heap that python3.13 does not make.
"""

import gc
import json
import sys
import time

from local import handlers  # stdlib only: puts the layer on sys.path, loads a function's module

BASELINES = ("boto3", "boto3_request")
NOT_IN_LAMBDA = ("awscrt", "OpenSSL")  # optional imports of botocore and urllib3 (boto3[crt], pyOpenSSL)
LAMBDA_GC_THRESHOLD = (2000, 10, 10)  # CPython 3.13's default


def baseline(request_path: str | None) -> tuple[float, float, int | None]:
    """(import ms, first request ms, status) of boto3 alone, timed from before its import."""
    start = time.perf_counter()
    import boto3

    client = boto3.client("dynamodb")
    created = time.perf_counter()
    if request_path is None:
        return (created - start) * 1000, 0.0, None
    with open(request_path) as source:
        call = json.load(source)
    response = getattr(client, call["operation"])(**call["request"])
    return (created - start) * 1000, (time.perf_counter() - created) * 1000, response["ResponseMetadata"]["HTTPStatusCode"]


def main() -> None:
    function = sys.argv[1]
    sys.modules.update(dict.fromkeys(NOT_IN_LAMBDA))  # None: importing them raises ImportError
    gc.set_threshold(*LAMBDA_GC_THRESHOLD)
    if function in BASELINES:
        import_ms, first_ms, status = baseline(sys.argv[2] if len(sys.argv) > 2 else None)
        print(json.dumps({"import_ms": import_ms, "first_ms": first_ms, "status": status}))
        return
    start = time.perf_counter()
    handler = handlers.handler(function)
    imported = time.perf_counter()
    if len(sys.argv) < 3:  # import only (for -X importtime)
        return
    with open(sys.argv[2]) as source:
        event = json.load(source)
    response = handler(event, handlers.LambdaContext(function))
    served = time.perf_counter()
    status = response.get("statusCode") if isinstance(response, dict) and "statusCode" in response else "ok"
    print(json.dumps({"import_ms": (imported - start) * 1000, "first_ms": (served - imported) * 1000, "status": status}))


if __name__ == "__main__":
    main()
