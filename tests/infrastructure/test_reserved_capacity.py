"""Capacity kept for what a flood must never starve (issue 54): the pre-token trigger (sign-ins), the table
stream's processor (boards, results) and the MQTT authorizer (connects) each have reserved concurrency, which is
also each one's cap, and together they leave the account's unreserved pool its due."""

from __future__ import annotations

from stacks.functions import logical_id
from stacks.settings import (
    AUTHORIZER,
    AUTHORIZER_CONCURRENCY,
    STREAM_PROCESSOR,
    STREAM_PROCESSOR_CONCURRENCY,
    TOKEN_GROUPS,
    TOKEN_GROUPS_CONCURRENCY,
)

ACCOUNT_CONCURRENCY = 1000  # Lambda's default concurrent executions a Region
UNRESERVED_MINIMUM = 100  # Lambda keeps this much unreserved whatever is reserved


def test_the_trigger_the_stream_processor_and_the_authorizer_have_concurrency_of_their_own(resources):
    reserved = {name: resources[logical_id(name)]["Properties"].get("ReservedConcurrentExecutions")
                for name in (TOKEN_GROUPS, STREAM_PROCESSOR, AUTHORIZER)}
    assert reserved == {TOKEN_GROUPS: TOKEN_GROUPS_CONCURRENCY, STREAM_PROCESSOR: STREAM_PROCESSOR_CONCURRENCY,
                        AUTHORIZER: AUTHORIZER_CONCURRENCY}
    every = [f["Properties"]["ReservedConcurrentExecutions"] for f in resources.values()
             if f["Type"] == "AWS::Lambda::Function" and "ReservedConcurrentExecutions" in f["Properties"]]
    assert sum(every) <= ACCOUNT_CONCURRENCY - UNRESERVED_MINIMUM - 500  # the API's functions keep most of the pool

