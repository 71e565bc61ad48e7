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


class Unprocessable(AlleycatError):
    """Well-formed, but not doable as asked: an Idempotency-Key reused with a different body (422)."""

    status = 422


class Busy(AlleycatError):
    """DynamoDB asked us to slow down and our retries ran out: the caller may retry (503)."""

    status = 503
    retry_after_seconds = 1


# Error codes of a request DynamoDB did not do for now (throttled, or in conflict with a transaction).
_RETRYABLE = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "TransactionConflictException",
    "TransactionInProgressException",
    "InternalServerError",
}
# Cancellation reason codes of a transaction action that may succeed when sent again
# (real DynamoDB reports these, not exception names).
_RETRYABLE_REASONS = {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"}
# A reason that is an answer, not a hiccup: sending the transaction again gives the same one.
_DEFINITE_REASONS = {"ConditionalCheckFailed", "ValidationError", "ItemCollectionSizeLimitExceeded"}


def error_code(error: Exception) -> str:
    return getattr(error, "response", {}).get("Error", {}).get("Code", "")


def cancellation_codes(error: Exception) -> list[str]:
    """Per-action reasons of a cancelled transaction ('None' where the action was fine)."""
    reasons = getattr(error, "response", {}).get("CancellationReasons", [])
    return [reason.get("Code", "None") for reason in reasons]


def first_condition_failed(error: Exception) -> bool:
    """A transaction cancelled because its first action's condition was not met."""
    return cancellation_codes(error)[:1] == ["ConditionalCheckFailed"]


def in_conflict(error: Exception) -> bool:
    """A transaction conflict: sending the same request again soon may succeed (botocore does not)."""
    code = error_code(error)
    if code == "TransactionCanceledException":
        codes = set(cancellation_codes(error))
        return bool(codes & _RETRYABLE_REASONS) and not codes & _DEFINITE_REASONS
    return code == "TransactionConflictException"


def retryable(error: Exception) -> bool:
    """True when the same request may succeed if sent again a little later."""
    code = error_code(error)
    if code == "TransactionCanceledException":
        codes = set(cancellation_codes(error))
        return bool(codes & _RETRYABLE_REASONS) and not codes & _DEFINITE_REASONS
    return code in _RETRYABLE


def translate(error: Exception, conflict: str = "the request conflicts with the current state") -> Exception:
    """A botocore ClientError as the domain error it means; anything else is a bug (500)."""
    code = error_code(error)
    if code == "ConditionalCheckFailedException":
        return Conflict(conflict)
    if retryable(error):
        return Busy("the service is busy, please retry in a second")
    return error
