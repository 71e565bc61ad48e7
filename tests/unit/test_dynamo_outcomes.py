"""The DynamoDB gateway's outcomes (``alleycat.storage.dynamo.send``): DynamoDB's errors, shaped as
botocore hands them over (AWS's documented error responses), each become the outcome it names. No
table: a stand-in client answers, and a stand-in clock takes the backoff's sleeps."""

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError

from alleycat.errors import Busy, Conflict
from alleycat.storage import dynamo


def cancelled(*codes: str) -> ClientError:
    """TransactWriteItems cancelled: one reason per action, in order ("None": that action was fine)."""
    reasons = [{"Code": code} if code == "None" else {"Code": code, "Message": f"{code} on this action"}
               for code in codes]
    message = f"Transaction cancelled, please refer cancellation reasons for specific reasons [{', '.join(codes)}]"
    return ClientError({"Error": {"Code": "TransactionCanceledException", "Message": message},
                        "CancellationReasons": reasons}, "TransactWriteItems")


def failed_condition(item: dict | None = None) -> ClientError:
    response = {"Error": {"Code": "ConditionalCheckFailedException", "Message": "The conditional request failed"}}
    if item is not None:
        response["Item"] = item
    return ClientError(response, "UpdateItem")


def error(code: str, operation: str = "PutItem") -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": f"{code} (as AWS answers it)"}}, operation)


class Client:
    """Answers each request with the next of ``answers`` (an exception is raised); records the requests."""

    def __init__(self, *answers):
        self.answers, self.requests = list(answers), []

    def __getattr__(self, operation):
        def request(**parameters):
            self.requests.append((operation, parameters))
            answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
            if isinstance(answer, Exception):
                raise answer
            return answer
        return request


class Clock:
    """``time`` as the gateway's backoff sees it: sleeping moves it."""

    def __init__(self):
        self.now, self.slept = 1000.0, []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def answering(monkeypatch):
    monkeypatch.setenv("TABLE_NAME", "races-table")
    clock = Clock()
    monkeypatch.setattr(dynamo, "time", clock)

    def with_answers(*answers) -> Client:
        stand_in = Client(*answers)
        monkeypatch.setattr(dynamo, "client", lambda: stand_in)
        return stand_in
    with_answers.clock = clock
    return with_answers


def test_a_write_whose_condition_failed_comes_back_with_the_stored_item(answering):
    # Given a conditional update that asked for the stored item and whose condition was not met
    stored = {"PK": {"S": "RACE#r1"}, "SK": {"S": "ENTRY#a"}, "device": {"S": "phone"}}
    client = answering(failed_condition(stored))
    # When it is sent / Then it comes back as ConditionFailed with that item, sent once
    with pytest.raises(dynamo.ConditionFailed) as raised:
        dynamo.send("update_item", Key={"PK": {"S": "RACE#r1"}}, ConditionExpression="attribute_not_exists(device)")
    assert raised.value.item == stored
    assert len(client.requests) == 1


def test_a_condition_failed_without_the_item_says_so():
    # Given an engine that returns no item with a failed condition / Then the outcome has none
    outcome = dynamo.outcome_of(failed_condition())
    assert isinstance(outcome, dynamo.ConditionFailed) and outcome.item is None


def test_a_condition_failed_that_no_caller_handles_is_a_409_conflict():
    # Given a failed condition (as a write not expecting one lets it through) / Then the API answers 409
    outcome = dynamo.outcome_of(failed_condition())
    assert isinstance(outcome, Conflict) and outcome.status == 409


def test_a_cancelled_transaction_comes_back_with_each_actions_reason_in_order(answering):
    # Given a transaction of three actions whose second action's condition failed
    client = answering(cancelled("None", "ConditionalCheckFailed", "None"))
    # When it is sent
    with pytest.raises(dynamo.Cancelled) as raised:
        dynamo.send("transact_write_items", TransactItems=[{}, {}, {}])
    # Then the reasons are DynamoDB's, one per action, in the actions' order; not sent again
    assert raised.value.reasons == ("None", "ConditionalCheckFailed", "None")
    assert raised.value.condition_failed() is True
    assert [raised.value.condition_failed(action) for action in range(3)] == [False, True, False]
    assert len(client.requests) == 1


def test_a_cancellation_whose_first_condition_held_says_so():
    # Given the first action fine and the third's condition failed
    outcome = dynamo.outcome_of(cancelled("None", "None", "ConditionalCheckFailed"))
    # Then "the first action's condition failed" is false, "some condition failed" is true
    assert outcome.condition_failed(0) is False and outcome.condition_failed() is True


def test_a_cancellation_for_another_reason_than_a_condition_says_no_condition_failed():
    # Given an action DynamoDB refused as invalid
    outcome = dynamo.outcome_of(cancelled("None", "ValidationError"))
    # Then it is a cancellation (a definite answer, not a hiccup) with no failed condition
    assert isinstance(outcome, dynamo.Cancelled)
    assert outcome.reasons == ("None", "ValidationError") and outcome.condition_failed() is False


def test_a_transaction_in_conflict_is_sent_again_until_it_goes_through(answering):
    # Given a transaction cancelled twice by other transactions, then written
    client = answering(cancelled("TransactionConflict", "None"), cancelled("None", "TransactionConflict"), {})
    # When it is sent / Then it is written, after two pauses, as the same request each time
    assert dynamo.send("transact_write_items", TransactItems=[{"Put": {}}, {"Put": {}}]) == {}
    assert len(client.requests) == 3 and len(answering.clock.slept) == 2
    assert client.requests[0] == client.requests[1] == client.requests[2]


def test_a_transaction_still_in_conflict_after_about_a_second_is_busy(answering):
    # Given a transaction every attempt of which another transaction cancels
    client = answering(cancelled("None", "TransactionConflict"))
    # When it is sent / Then the caller gets Busy (503, retry after a second)
    with pytest.raises(Busy) as raised:
        dynamo.send("transact_write_items", TransactItems=[{}, {}])
    assert (raised.value.status, raised.value.retry_after_seconds) == (503, 1)
    # And it was sent more than once, for at most about a second of pauses (the gateway's promise)
    assert len(client.requests) > 1 and sum(answering.clock.slept) <= 1.0


def test_a_condition_that_failed_beside_a_conflict_is_an_answer_not_retried(answering):
    # Given a cancellation with a failed condition and a conflict: sending it again fails the same condition
    client = answering(cancelled("ConditionalCheckFailed", "TransactionConflict"))
    with pytest.raises(dynamo.Cancelled) as raised:
        dynamo.send("transact_write_items", TransactItems=[{}, {}])
    # Then it comes back at once, with both reasons
    assert raised.value.reasons == ("ConditionalCheckFailed", "TransactionConflict")
    assert len(client.requests) == 1 and answering.clock.slept == []


def test_a_single_write_in_conflict_with_a_transaction_is_sent_again(answering):
    # Given a PutItem that hit an item a transaction was writing, then went through
    client = answering(error("TransactionConflictException"), {})
    # Then it was sent again and written
    assert dynamo.send("put_item", Item={"PK": {"S": "RACER#a"}}) == {}
    assert len(client.requests) == 2


@pytest.mark.parametrize("code", ["ProvisionedThroughputExceededException", "ThrottlingException",
                                  "RequestLimitExceeded", "InternalServerError", "TransactionInProgressException"])
def test_a_throttled_request_is_busy_at_once_botocore_retried_it_already(answering, code):
    # Given DynamoDB's answer once botocore's own retries ran out
    client = answering(error(code, "Query"))
    # When it is sent / Then the caller gets Busy (503), with no more attempts of ours
    with pytest.raises(Busy) as raised:
        dynamo.send("query", KeyConditionExpression="PK = :p")
    assert raised.value.status == 503
    assert len(client.requests) == 1


@pytest.mark.parametrize("reason", ["ThrottlingError", "ProvisionedThroughputExceeded"])
def test_a_transaction_cancelled_by_throttling_is_busy(reason):
    assert isinstance(dynamo.outcome_of(cancelled("None", reason)), Busy)


def test_any_other_error_is_botocores_own_a_bug_not_an_outcome(answering):
    # Given a request DynamoDB refuses as malformed
    refused = error("ValidationException", "UpdateItem")
    answering(refused)
    # Then the caller gets botocore's error itself (the API answers 500)
    with pytest.raises(ClientError) as raised:
        dynamo.send("update_item", Key={}, UpdateExpression="SET")
    assert raised.value is refused


@pytest.mark.parametrize("failure", [EndpointConnectionError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com"),
                                     ReadTimeoutError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com")])
def test_a_database_that_does_not_answer_is_busy(answering, failure):
    answering(failure)
    with pytest.raises(Busy) as raised:
        dynamo.send("get_item", Key={})
    assert raised.value.status == 503


def test_a_request_on_the_table_names_it_and_a_transaction_does_not(answering):
    # Given the table the function was given
    client = answering({})
    # When a GetItem and a transaction are sent
    dynamo.send("get_item", Key={"PK": {"S": "RACE#r1"}})
    dynamo.send("transact_write_items", TransactItems=[])
    # Then the GetItem names the table; the transaction (whose actions name it) is sent as given
    assert client.requests == [("get_item", {"TableName": "races-table", "Key": {"PK": {"S": "RACE#r1"}}}),
                               ("transact_write_items", {"TransactItems": []})]


def test_conditional_is_none_when_the_condition_failed_and_the_response_otherwise(answering):
    answering(failed_condition())
    assert dynamo.conditional("put_item", Item={}, ConditionExpression="attribute_not_exists(PK)") is None
    answering({"Attributes": {"n": {"N": "1"}}})
    assert dynamo.conditional("update_item", Key={}, ReturnValues="ALL_NEW") == {"Attributes": {"n": {"N": "1"}}}


def test_only_a_process_that_names_another_read_timeout_waits_longer_than_the_deployed_one():
    from alleycat import settings

    deployed, local = dynamo.config(settings.read({})), dynamo.config(settings.read({"DYNAMODB_READ_TIMEOUT_SECONDS": "30"}))
    assert local.read_timeout == 30 and deployed.read_timeout < 10  # inside the API functions' 10 s
    assert local.connect_timeout == deployed.connect_timeout
