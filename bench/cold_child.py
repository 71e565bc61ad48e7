"""One cold start, run in a fresh interpreter: ``python -m bench.cold_child <function|baseline> [event.json]``.

Prints one JSON line: milliseconds to import the handler (the layer on sys.path, as in
Lambda) and to serve its first request, as wall time and as this process's CPU time (which
leaves out waiting for DynamoDB Local, whose transactions take far longer than DynamoDB's),
and the response's status code. The baselines
(``BASELINES``) import boto3 and create a bare DynamoDB client; ``boto3_request`` then
sends the one request its file holds (``{"operation": ..., "request": {...}}``), as a
function's first call does: botocore loads the endpoint rules, signs, sends and parses.

Packages this machine has and Lambda's python runtime lacks (``NOT_IN_LAMBDA``) are hidden
from the child, so botocore imports what it imports in Lambda: with awscrt and pyOpenSSL
present it loads them too (~70 ms), which would pad the baseline and every function alike.
The collector runs at Lambda's python3.13 thresholds (``LAMBDA_GC_THRESHOLD``): at 3.11's
(700, 10, 10) the bare client stops just short of the first full collection, so any
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


def now() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def figures(start, imported, served, status) -> dict:
    """Milliseconds from ``start`` to ``imported`` and from there to ``served``, wall and CPU."""
    return {"import_ms": (imported[0] - start[0]) * 1000, "first_ms": (served[0] - imported[0]) * 1000,
            "import_cpu_ms": (imported[1] - start[1]) * 1000, "first_cpu_ms": (served[1] - imported[1]) * 1000,
            "status": status}


def baseline(request_path: str | None) -> dict:
    """boto3 alone, timed from before its import: the client, then its first request if given one."""
    start = now()
    import boto3

    client = boto3.client("dynamodb")
    created = now()
    if request_path is None:
        return figures(start, created, created, None)
    with open(request_path) as source:
        call = json.load(source)
    response = getattr(client, call["operation"])(**call["request"])
    return figures(start, created, now(), response["ResponseMetadata"]["HTTPStatusCode"])


def main() -> None:
    function = sys.argv[1]
    sys.modules.update(dict.fromkeys(NOT_IN_LAMBDA))  # None: importing them raises ImportError
    gc.set_threshold(*LAMBDA_GC_THRESHOLD)
    if function in BASELINES:
        print(json.dumps(baseline(sys.argv[2] if len(sys.argv) > 2 else None)))
        return
    start = now()
    handler = handlers.handler(function)
    imported = now()
    if len(sys.argv) < 3:  # import only (for -X importtime)
        return
    with open(sys.argv[2]) as source:
        event = json.load(source)
    response = handler(event, handlers.LambdaContext(function))
    status = response.get("statusCode") if isinstance(response, dict) and "statusCode" in response else "ok"
    print(json.dumps(figures(start, imported, now(), status)))


if __name__ == "__main__":
    main()
