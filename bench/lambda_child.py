"""One cold start as Lambda's python3.13 runs it: ``python3.13 -s -S -P -B bench/lambda_child.py <spec.json>``.

The spec names ``function`` (a synthesized function, or one of ``BASELINES``), ``path`` (the
import path: the function's asset folder, as ``/var/task``, each layer's ``python/`` folder, as
``/opt/python``, then the stand-in for ``/var/runtime``: boto3 and its dependencies, compiled),
and ``request`` (the event file, or the baseline's DynamoDB request; none: import only, for
``-X importtime``). The parent starts the child with ``path`` as its ``PYTHONPATH``, its only
``PYTHON*`` variable, as Lambda's runtime sets its import path (``bench/coldstart.py``:
``child_environment``). ``-s -S -P`` keeps everything else off the path (no site-packages: no
awscrt or pyOpenSSL, which Lambda's runtime lacks and botocore would load; not this file's
folder), ``-B`` writes no bytecode (Lambda's folders are read-only), so what has no ``.pyc`` in the assets is compiled
at every start, as in Lambda. Standard library only: nothing of this repository is imported.

Prints one JSON line: milliseconds to import the handler and to serve its first request, as
wall time and as this process's CPU time (which leaves out waiting for DynamoDB Local, whose
transactions take far longer than DynamoDB's), and the response's status code. The baselines
import boto3 and create a bare DynamoDB client; ``boto3_request`` then sends the one request
its file holds (``{"operation": ..., "request": {...}}``), as a function's first call does:
botocore loads the endpoint rules, signs, sends and parses. ``botocore_request`` does the same
with botocore's own client, as the functions make theirs (``alleycat.dynamo.client``). The
standard library Lambda's runtime imports before the handler (``RUNTIME_IMPORTS``) is imported
before the clock starts.
"""

import json
import sys
import time
import uuid

BASELINES = ("boto3", "boto3_request", "botocore_request")
# The standard library Lambda's python runtime (awslambdaric's bootstrap, its log, client and
# marshaller modules) has imported before it imports the handler: loaded before the clock starts,
# on both sides, as in Lambda.
RUNTIME_IMPORTS = ("importlib", "json", "logging", "traceback", "datetime", "enum", "decimal", "math",
                   "concurrent.futures")


class LambdaContext:
    """The parts of Lambda's context object that Powertools reads."""

    def __init__(self, function: str):
        self.function_name = function
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = 256
        self.invoked_function_arn = f"arn:aws:lambda:local:000000000000:function:{function}"
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function}"
        self.log_stream_name = "local"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 10_000


def now() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def figures(start, imported, served, status) -> dict:
    """Milliseconds from ``start`` to ``imported`` and from there to ``served``, wall and CPU."""
    return {"import_ms": (imported[0] - start[0]) * 1000, "first_ms": (served[0] - imported[0]) * 1000,
            "import_cpu_ms": (imported[1] - start[1]) * 1000, "first_cpu_ms": (served[1] - imported[1]) * 1000,
            "status": status}


def baseline(kind: str, request_path: str | None) -> dict | None:
    """boto3 alone (or botocore alone: ``botocore_request``), timed from before its import: the
    client, then its first request if given one."""
    start = now()
    if kind == "botocore_request":
        import botocore.session

        client = botocore.session.Session().create_client("dynamodb")
    else:
        import boto3

        client = boto3.client("dynamodb")
    created = now()
    if request_path is None:
        return figures(start, created, created, None)
    with open(request_path) as source:
        call = json.load(source)
    response = getattr(client, call["operation"])(**call["request"])
    return figures(start, created, now(), response["ResponseMetadata"]["HTTPStatusCode"])


HANDLER_MARK = "lambda_child: importing the handler"  # on stderr before an import-only run's handler


def function(name: str, request_path: str | None) -> dict | None:
    """The handler module imported as Lambda's runtime imports ``app.handler``, then its first event."""
    if request_path is None:  # import only (-X importtime): what follows the mark is the handler's
        print(HANDLER_MARK, file=sys.stderr, flush=True)
    start = now()
    handler = __import__("app").handler
    imported = now()
    if request_path is None:
        return None
    with open(request_path) as source:
        event = json.load(source)
    response = handler(event, LambdaContext(name))
    status = response.get("statusCode") if isinstance(response, dict) and "statusCode" in response else "ok"
    return figures(start, imported, now(), status)


def main() -> None:
    for name in RUNTIME_IMPORTS:
        __import__(name)
    with open(sys.argv[1]) as source:
        spec = json.load(source)
    if sys.path[:len(spec["path"])] != spec["path"]:
        raise SystemExit(f"the import path is not the spec's: {sys.path}")
    name, request = spec["function"], spec.get("request")
    result = baseline(name, request) if name in BASELINES else function(name, request)
    if result is not None:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
