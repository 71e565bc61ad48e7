"""Domain errors, each with its HTTP status (``alleycat.storage.dynamo`` turns DynamoDB's answers into them)."""

from __future__ import annotations


class AlleycatError(Exception):
    status = 500

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class BadRequest(AlleycatError):
    status = 400


class Unauthorized(AlleycatError):
    status = 401


class Forbidden(AlleycatError):
    status = 403


class NotFound(AlleycatError):
    status = 404


class Conflict(AlleycatError):
    status = 409


class PayloadTooLarge(AlleycatError):
    status = 413


class Unprocessable(AlleycatError):
    """Well-formed, but not doable as asked: an Idempotency-Key reused with a different body (422)."""

    status = 422


class Busy(AlleycatError):
    """DynamoDB asked us to slow down, or did not answer, and our retries ran out: the caller may retry (503)."""

    status = 503
    retry_after_seconds = 1
