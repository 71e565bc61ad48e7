"""One cold start as Lambda's python3.13 runs it: ``python3.13 -s -S -P -B lambda_child.py <spec.json>``, the
spec's ``path`` as ``PYTHONPATH``. Standard library only. Prints import and first-request ms, wall and CPU, and the
process's peak resident memory (what Lambda's REPORT line calls Max Memory Used)."""

import json
import sys
import time
import types
import uuid

# What Lambda's runtime has imported before the handler: loaded before the clock starts.
RUNTIME_IMPORTS = ("importlib", "json", "logging", "traceback", "datetime", "enum", "decimal", "math", "concurrent.futures")


def now() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def main() -> None:
    for name in RUNTIME_IMPORTS:
        __import__(name)
    with open(sys.argv[1]) as source:
        spec = json.load(source)
    if sys.path[:len(spec["path"])] != spec["path"]:
        raise SystemExit(f"the import path is not the spec's: {sys.path}")
    name, request = spec["function"], None
    if spec["request"]:
        with open(spec["request"]) as source:
            request = json.load(source)
    start = now()
    if name.startswith(("boto3", "botocore")):  # the baselines: boto3's client (or botocore's), its first request
        if name == "botocore_request":
            import botocore.session

            client = botocore.session.Session().create_client("dynamodb")
        else:
            import boto3

            client = boto3.client("dynamodb")
        loaded = now()
        status = request and getattr(client, request["operation"])(**request["request"])["ResponseMetadata"]["HTTPStatusCode"]
    else:  # a function: the handler imported as Lambda's runtime imports ``app.handler``, then its first event
        handler = __import__("app").handler
        loaded = now()
        response = handler(request, types.SimpleNamespace(  # the parts of Lambda's context Powertools reads
            function_name=name, function_version="$LATEST", memory_limit_in_mb=256, aws_request_id=str(uuid.uuid4()),
            invoked_function_arn=f"arn:aws:lambda:local:000000000000:function:{name}", log_group_name=f"/aws/lambda/{name}",
            log_stream_name="local", get_remaining_time_in_millis=lambda: 10_000))
        status = response.get("statusCode", "ok") if isinstance(response, dict) else "ok"
    served = now()
    print(json.dumps({"import_ms": (loaded[0] - start[0]) * 1000, "first_ms": (served[0] - loaded[0]) * 1000,
                      "import_cpu_ms": (loaded[1] - start[1]) * 1000, "first_cpu_ms": (served[1] - loaded[1]) * 1000,
                      "status": status, "python": sys.version.split()[0],
                      "peak_rss_mb": peak_rss_mb()}))


def peak_rss_mb() -> float:
    """This process's peak resident memory since its exec (Linux's VmHWM; getrusage's keeps the parent's from before)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


if __name__ == "__main__":
    main()
