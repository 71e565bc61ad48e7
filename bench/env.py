"""The bench's DynamoDB Local, its handlers and events, the stack as synthesized, progress lines."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import time

from alleycat import settings
from alleycat.storage import dynamo
from local import handlers
from local.dynamodb_local import EmbeddedDynamoDB
from local.events import sample_event as event  # noqa: F401 - the function's events/ file, overridden
from local.handlers import invoke  # noqa: F401
from local.server import configure_environment
from stacks import logical_id

ROOT = handlers.ROOT
_START = time.perf_counter()


def say(message: str) -> None:
    print(f"[{time.perf_counter() - _START:6.1f}s] {message}", flush=True)


def fan_in(on: bool) -> dict:
    """``ALLEYCAT_FAN_IN`` in this process as ``on`` says (the settings read again); the workers' setting for it."""
    os.environ[settings.FAN_IN] = "on" if on else "off"  # said either way: the layer's default is on
    settings.reset()
    return {settings.FAN_IN: os.environ[settings.FAN_IN]}


def fan_in_default() -> None:
    """``ALLEYCAT_FAN_IN`` unset again in this process: the layer's default."""
    os.environ.pop(settings.FAN_IN, None)
    settings.reset()


class Dynamo:
    """The embedded engine, the layer's client pointed at it."""

    def __init__(self):
        self.server = self._started()

    def restart(self) -> None:
        """A fresh engine for the next stage: DynamoDB Local slows for good once it has held many items."""
        self.server.stop()
        self.server = self._started()

    @staticmethod
    def _started() -> EmbeddedDynamoDB:
        server = EmbeddedDynamoDB(heap_mb=1024).start()  # a race's stream records stay in its heap
        configure_environment(server.url)
        dynamo.client.cache_clear()
        return server

    def create(self, table: str) -> None:
        self.server.create_table(table)
        os.environ["TABLE_NAME"] = table
        settings.reset()

    def put_all(self, items: list[dict]) -> None:
        for start in range(0, len(items), 25):
            request = {dynamo.table_name(): [{"PutRequest": {"Item": i}} for i in items[start:start + 25]]}
            dynamo.batch("batch_write_item", request, "UnprocessedItems")

    def __enter__(self) -> Dynamo:
        return self

    def __exit__(self, *exc) -> None:
        self.server.stop()


def functions() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "functions").glob("*/app.py"))


def template(synthesize: bool = False) -> dict:
    """The stack's template in ``cdk.out``, ``cdk synth`` first (as ``make synth`` does) if asked or absent."""
    path = ROOT / "cdk.out" / "Alleycat.template.json"
    if synthesize or not path.exists():
        subprocess.run([str(ROOT / "node_modules" / ".bin" / "cdk"), "synth", "--quiet", "--no-notices"], cwd=ROOT,
                       check=True, stdout=subprocess.DEVNULL, env={**os.environ, "CDK_DISABLE_CLI_TELEMETRY": "true"})
    return json.loads(path.read_text())


@functools.cache
def stack() -> dict:
    """What the synthesized stack deploys that the bench runs and prices."""
    resources = template()["Resources"]
    of = lambda kind: [r["Properties"] for r in resources.values() if r["Type"] == kind]
    telemetry = resources[logical_id("post_telemetry")]["Properties"]
    [stage] = of("AWS::ApiGatewayV2::Stage")
    [mapping] = [m for m in of("AWS::Lambda::EventSourceMapping")
                 if m["FunctionName"] == {"Ref": logical_id("stream_processor")}]
    [log_mapping] = [m for m in of("AWS::Lambda::EventSourceMapping")
                     if m["FunctionName"] == {"Ref": logical_id("ingest_telemetry")}]
    [log] = of("AWS::Kinesis::Stream")
    return {"memory_mb": {f: resources[logical_id(f)]["Properties"]["MemorySize"] for f in functions()},
            "access_log_fields": json.loads(stage["AccessLogSettings"]["Format"]),
            "stream_batch_size": mapping["BatchSize"], "ingest_shards": log["ShardCount"],
            "ingest_batch_size": log_mapping["BatchSize"], "ingest_parallelization": log_mapping["ParallelizationFactor"],
            "ingest_window_seconds": log_mapping.get("MaximumBatchingWindowInSeconds", 0),
            # an enhanced fan-out consumer's ARN (records pushed), else the stream's (polled about once a second)
            "ingest_pushed": "ConsumerARN" in json.dumps(log_mapping["EventSourceArn"]),
            "routes": len(of("AWS::ApiGatewayV2::Route")),
            "alarms": len(of("AWS::CloudWatch::Alarm")), "dashboards": len(of("AWS::CloudWatch::Dashboard")),
            # a function's environment as far as what it writes goes: metrics on, Lambda's log controls
            "settings": {**{k: v for k, v in telemetry["Environment"]["Variables"].items() if isinstance(v, str) and v},
                         "POWERTOOLS_METRICS_DISABLED": "false", "POWERTOOLS_LOG_LEVEL": "", "LOG_LEVEL": "",
                         "AWS_LAMBDA_LOG_FORMAT": telemetry["LoggingConfig"]["LogFormat"],
                         "AWS_LAMBDA_LOG_LEVEL": telemetry["LoggingConfig"]["ApplicationLogLevel"]}}

