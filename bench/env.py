"""The benchmark's DynamoDB: DynamoDB Local (the embedded engine), its tables, and handler invocation."""

from __future__ import annotations

import os

from local import handlers
from local.events import sample_event
from local.dynamodb_local import EmbeddedDynamoDB
from local.server import configure_environment

from alleycat import dynamo
from alleycat.schema import create_table_request

ROOT = handlers.ROOT
EVENTS = ROOT / "events"

class Dynamo:
    """The embedded server plus a raw client for seeding (its requests are not counted)."""

    def __init__(self):
        self.server = None
        self.restart()

    def restart(self) -> None:
        """A fresh engine for the next stage: DynamoDB Local slows for good once it has held
        many items (8,600 seeded items made later writes ~3x slower, dropped or not)."""
        if self.server is not None:
            self.server.stop()
        # A race's stream records stay in the JVM's heap: room for them.
        self.server = EmbeddedDynamoDB(heap_mb=1024).start()
        configure_environment(self.server.url)
        dynamo.client.cache_clear()  # the layer's client pointed at the engine before
        self.raw = self.server.client()

    def create(self, table: str) -> None:
        self.raw.create_table(**create_table_request(table))

    def use(self, table: str) -> None:
        os.environ["TABLE_NAME"] = table

    def put_all(self, items: list[dict], table: str | None = None) -> None:
        table = table or os.environ["TABLE_NAME"]
        for start in range(0, len(items), 25):
            pending = {table: [{"PutRequest": {"Item": i}} for i in items[start:start + 25]]}
            while pending:
                pending = self.raw.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}

    def lookup(self, keys: list[dict]) -> list[dict | None]:
        """The stored items under distinct keys, in order (consistent BatchGetItem on the raw client: not counted)."""
        table, found = os.environ["TABLE_NAME"], {}
        for start in range(0, len(keys), 100):
            pending = {table: {"Keys": keys[start:start + 100], "ConsistentRead": True}}
            while pending:
                response = self.raw.batch_get_item(RequestItems=pending)
                for item in response["Responses"].get(table, []):
                    found[(item["PK"]["S"], item["SK"]["S"])] = item
                pending = response.get("UnprocessedKeys") or {}
        return [found.get((key["PK"]["S"], key["SK"]["S"])) for key in keys]

    def table_stats(self, table: str) -> tuple[int, int]:
        """(items, bytes) of a table: a Scan, the benchmark's own bookkeeping (no route scans)."""
        from .ledger import size

        items, request = 0, {"TableName": table}
        total = 0
        while True:
            page = self.raw.scan(**request)
            items += len(page["Items"])
            total += sum(size(i) for i in page["Items"])
            if "LastEvaluatedKey" not in page:
                return items, total
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def stop(self) -> None:
        self.server.stop()

def event(function: str, path: dict | None = None, body=..., query=..., claims=...) -> dict:
    """The function's events/ file with the given overrides."""
    return sample_event(function, path, body, query, claims)


def invoke(function: str, payload: dict) -> dict:
    return handlers.invoke(function, payload)

def functions() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "functions").glob("*/app.py"))

def client():
    return dynamo.client()
