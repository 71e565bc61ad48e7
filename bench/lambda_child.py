"""One cold start as Lambda's python3.13 runs it: ``python3.13 -s -S -P -B lambda_child.py <spec.json>``.

The spec names ``function`` (a function, or a baseline), ``path`` (the import path, given as
``PYTHONPATH``) and ``request`` (the event, or the baseline's DynamoDB request; none: import only).
Standard library only. Prints one JSON line: import and first-request milliseconds, wall and CPU.
"""

import json
import sys
import time
import uuid

# What Lambda's runtime has imported before the handler: loaded before the clock starts.
RUNTIME_IMPORTS = ("importlib", "json", "logging", "traceback", "datetime", "enum", "decimal", "math",
                   "concurrent.futures")
HANDLER_MARK = "lambda_child: importing the handler"


class LambdaContext:
    def __init__(self, function: str):
        self.function_name, self.function_version, self.memory_limit_in_mb = function, "$LATEST", 256
        self.invoked_function_arn = f"arn:aws:lambda:local:000000000000:function:{function}"
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name, self.log_stream_name = f"/aws/lambda/{function}", "local"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 10_000


def now() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def figures(start, imported, served, status) -> dict:
    return {"import_ms": (imported[0] - start[0]) * 1000, "first_ms": (served[0] - imported[0]) * 1000,
            "import_cpu_ms": (imported[1] - start[1]) * 1000, "first_cpu_ms": (served[1] - imported[1]) * 1000,
            "status": status}


def baseline(kind: str, request: dict | None) -> dict:
    """boto3's client (or botocore's: ``botocore_request``), then its first request if given one."""
    start = now()
    if kind == "botocore_request":
        import botocore.session

        client = botocore.session.Session().create_client("dynamodb")
    else:
        import boto3

        client = boto3.client("dynamodb")
    created = now()
    if request is None:
        return figures(start, created, created, None)
    response = getattr(client, request["operation"])(**request["request"])
    return figures(start, created, now(), response["ResponseMetadata"]["HTTPStatusCode"])


def function(name: str, event: dict | None) -> dict | None:
    """The handler imported as Lambda's runtime imports ``app.handler``, then its first event."""
    if event is None:  # import only (-X importtime): what follows the mark is the handler's
        print(HANDLER_MARK, file=sys.stderr, flush=True)
    start = now()
    handler = __import__("app").handler
    imported = now()
    if event is None:
        return None
    response = handler(event, LambdaContext(name))
    return figures(start, imported, now(), response.get("statusCode", "ok") if isinstance(response, dict) else "ok")


def main() -> None:
    for name in RUNTIME_IMPORTS:
        __import__(name)
    with open(sys.argv[1]) as source:
        spec = json.load(source)
    if sys.path[:len(spec["path"])] != spec["path"]:
        raise SystemExit(f"the import path is not the spec's: {sys.path}")
    request = None
    if spec["request"]:
        with open(spec["request"]) as source:
            request = json.load(source)
    name = spec["function"]
    result = baseline(name, request) if name.startswith(("boto3", "botocore")) else function(name, request)
    if result is not None:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
