"""A DynamoDB call that stalls must end inside the API functions' timeout, retries included."""

from alleycat import settings
from alleycat.storage import dynamo
from stacks.functions import API_TIMEOUT_SECONDS


# botocore's standard mode backs off up to 2 ** (attempt - 1) seconds (capped at 20) before each retry.
def worst_backoff(attempts: int) -> float:
    return sum(min(20, 2 ** retry) for retry in range(attempts - 1))


def test_one_call_with_its_retries_ends_before_the_function_times_out():
    # Given the client every deployed function uses (no override in its environment)
    config = dynamo.config(settings.read({}))
    # When every attempt stalls for its whole connect and read timeouts
    attempts = config.retries["total_max_attempts"]
    worst = attempts * (config.connect_timeout + config.read_timeout) + worst_backoff(attempts)
    # Then the call still gives up before the function is killed, with standard-mode retries
    assert config.retries["mode"] == "standard" and attempts >= 2
    assert worst < API_TIMEOUT_SECONDS
