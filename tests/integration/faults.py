"""DynamoDB answers a test needs but an engine will not give on demand, injected at the boto3 client.

Engine-independent: the handler runs before botocore sends anything, so moto, DynamoDB
Local and a real table behave the same under it.
"""

from __future__ import annotations

import json

from botocore.exceptions import ClientError

from alleycat.storage import dynamo


def cancelled(*reasons: str) -> ClientError:
    """TransactionCanceledException as real DynamoDB reports it: one reason code per action."""
    return ClientError({"Error": {"Code": "TransactionCanceledException",
                                  "Message": "Transaction cancelled, please refer cancellation reasons"},
                        "CancellationReasons": [{"Code": code} for code in reasons]}, "TransactWriteItems")


def throttled(operation: str, code: str = "ProvisionedThroughputExceededException") -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "Rate of requests exceeds the allowed throughput."}},
                       operation)


class Faults:
    """Raises chosen errors for the next calls of an operation (``times``, or while ``when`` says so)."""

    def __init__(self):
        self.injected: list[str] = []
        self._handlers = []

    def fail(self, operation: str, error, times: int | None = None, when=None) -> None:
        left = [times]

        def handler(params, **_):
            params = _request(params)
            if when is not None and not when(params):
                return None
            if left[0] is not None:
                if left[0] <= 0:
                    return None
                left[0] -= 1
            self.injected.append(operation)
            raise error(params) if callable(error) else error

        event = f"before-call.dynamodb.{operation}"
        dynamo.client().meta.events.register(event, handler)
        self._handlers.append((event, handler))

    def answer(self, operation: str, response, when) -> None:
        """Answers matching calls with ``response(params)`` (e.g. a lagging read) instead of the engine."""
        def handler(params, **_):
            params = _request(params)
            if not when(params):
                return None
            self.injected.append(operation)
            return _Http200(), response(params)

        event = f"before-call.dynamodb.{operation}"
        dynamo.client().meta.events.register(event, handler)
        self._handlers.append((event, handler))

    def clear(self) -> None:
        for event, handler in self._handlers:
            dynamo.client().meta.events.unregister(event, handler)
        self._handlers.clear()


class _Http200:
    status_code = 200
    headers: dict = {}


def _request(request_dict: dict) -> dict:
    """The API parameters of a serialised DynamoDB request (its JSON body)."""
    body = request_dict.get("body") or b"{}"
    return json.loads(body.decode() if isinstance(body, bytes) else body)


WRITES = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")


class Writes:
    """Records every write request (or every request of ``operations``; None: all) made through
    the layer's client: (operation, parameters)."""

    def __init__(self, operations: tuple[str, ...] | None = WRITES):
        self.operations = operations
        self.calls: list[tuple[str, dict]] = []
        dynamo.client().meta.events.register("before-call.dynamodb", self._record)

    def _record(self, event_name, params, **_):
        operation = event_name.rsplit(".", 1)[-1]
        if self.operations is None or operation in self.operations:
            self.calls.append((operation, _request(params)))

    def close(self) -> None:
        dynamo.client().meta.events.unregister("before-call.dynamodb", self._record)


class Throttle:
    """Answers a share of DynamoDB requests on the wire with a throttling error, under botocore's
    retries (as a throttled table would); engine-independent, for clients of a DynamoDB endpoint."""

    CODES = ("ProvisionedThroughputExceededException", "ThrottlingException")

    def __init__(self, rate: float, seed: int = 11):
        import random

        self.rate, self.injected, self.sent = rate, 0, 0
        self._random = random.Random(seed)
        dynamo.client().meta.events.register_first("before-send.dynamodb", self._maybe)

    def _maybe(self, request, **_):
        from botocore.awsrequest import AWSResponse

        self.sent += 1
        if self._random.random() >= self.rate:
            return None
        self.injected += 1
        code = self._random.choice(self.CODES)
        body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": "Rate exceeded"}).encode()
        return AWSResponse(request.url, 400, {"Content-Type": "application/x-amz-json-1.0",
                                              "x-amzn-RequestId": "injected"}, _Raw(body))

    def close(self) -> None:
        dynamo.client().meta.events.unregister("before-send.dynamodb", self._maybe)


class _Raw:
    """The raw stream botocore reads an injected response body from."""

    def __init__(self, body: bytes):
        self._body = body

    def stream(self, **_):
        yield self._body
