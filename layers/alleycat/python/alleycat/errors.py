"""Domain errors, each with its HTTP status, and the one place DynamoDB errors become them."""

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


class Busy(AlleycatError):
    """DynamoDB asked us to slow down: the caller may retry."""

    status = 503


_RETRYABLE = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "TransactionConflictException",
}


def error_code(error: Exception) -> str:
    return getattr(error, "response", {}).get("Error", {}).get("Code", "")


def cancellation_codes(error: Exception) -> list[str]:
    """Per-action reasons of a cancelled transaction ('None' where the action was fine)."""
    reasons = getattr(error, "response", {}).get("CancellationReasons", [])
    return [reason.get("Code", "None") for reason in reasons]


def translate(error: Exception, conflict: str = "the request conflicts with the current state") -> Exception:
    """A botocore ClientError as the domain error it means; anything else is a bug (500)."""
    code = error_code(error)
    if code == "ConditionalCheckFailedException":
        return Conflict(conflict)
    if code in _RETRYABLE:
        return Busy("the service is busy, please retry")
    if code == "TransactionCanceledException" and set(cancellation_codes(error)) & _RETRYABLE:
        return Busy("the service is busy, please retry")
    return error
