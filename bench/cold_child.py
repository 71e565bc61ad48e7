"""One cold start, run in a fresh interpreter: ``python -m bench.cold_child <function|boto3> [event.json]``.

Prints one JSON line: milliseconds to import the handler (the layer on sys.path, as in
Lambda) and to serve its first request, and the response's status code.
"""

import json
import sys
import time

from local import handlers  # stdlib only: puts the layer on sys.path, loads a function's module


def main() -> None:
    function = sys.argv[1]
    start = time.perf_counter()
    if function == "boto3":
        import boto3

        boto3.client("dynamodb")
        print(json.dumps({"import_ms": (time.perf_counter() - start) * 1000, "first_ms": 0.0, "status": None}))
        return
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
