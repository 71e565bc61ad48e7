"""The benchmark's DynamoDB: the embedded moto server, its tables, and handler invocation."""

from __future__ import annotations

import os

from local import handlers  # puts the layer on sys.path
from local.events import sample_event
from local.server import EmbeddedDynamoDB, configure_environment

from alleycat import store  # noqa: E402
from alleycat.schema import create_table_request  # noqa: E402

ROOT = handlers.ROOT
EVENTS = ROOT / "events"
REGION = "us-east-1"

class Dynamo:
    """The embedded server plus a raw client for seeding (its requests are not counted)."""

    def __init__(self):
        self.server = EmbeddedDynamoDB().start()
        configure_environment(self.server.url)
        import boto3

        self.raw = boto3.client("dynamodb", endpoint_url=self.server.url)

    def create(self, table: str) -> None:
        self.raw.create_table(**create_table_request(table))

    def drop(self, table: str) -> None:
        self.raw.delete_table(TableName=table)

    def use(self, table: str) -> None:
        os.environ["TABLE_NAME"] = table

    def put_all(self, items: list[dict], table: str | None = None) -> None:
        table = table or os.environ["TABLE_NAME"]
        for start in range(0, len(items), 25):
            pending = {table: [{"PutRequest": {"Item": i}} for i in items[start:start + 25]]}
            while pending:
                pending = self.raw.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}

    def lookup(self, key: dict) -> dict | None:
        """The stored item under a key, read from the server's memory (no request)."""
        from moto.dynamodb.models import dynamodb_backends
        from moto.dynamodb.models.dynamo_type import DynamoType

        backend = next(iter(dynamodb_backends.values()))[REGION]
        item = backend.get_table(os.environ["TABLE_NAME"]).get_item(DynamoType(key["PK"]), DynamoType(key["SK"]))
        return item.to_json()["Attributes"] if item else None

    def table_stats(self, table: str) -> tuple[int, int]:
        """(items, bytes) of a table, from the server's memory."""
        from moto.dynamodb.models import dynamodb_backends

        from .ledger import size

        backend = next(iter(dynamodb_backends.values()))[REGION]
        items = [i.to_json()["Attributes"] for i in backend.get_table(table).all_items()]
        return len(items), sum(size(i) for i in items)

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
    return store.client()
