"""The local stand-in for Lambda's Invoke, met by AWS's own client (boto3) pointed at it."""

import json
import logging
import threading

import boto3
import pytest
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError

from local.lambda_api import LambdaApi, LambdaError

ACCESS_KEY, SECRET_KEY, REGION, ACCOUNT = "AKIDLOCAL", "local-secret", "eu-west-1", "123456789012"
FINISHER_ARN = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:finisher"


class Functions:
    """The function runner the stand-in calls: records each run, answers or raises as the test sets."""

    def __init__(self):
        self.runs: list[tuple[str, object]] = []
        self.ran = threading.Event()
        self.release = threading.Event()
        self.release.set()

    def __call__(self, name, event):
        assert self.release.wait(5)
        self.runs.append((name, event))
        self.ran.set()
        if name == "broken":
            raise KeyError("raceId")
        return {"function": name, "echo": event}


@pytest.fixture(scope="module")
def api():
    running = LambdaApi(lambda name, event: None, {"finisher", "broken"}, access_key=ACCESS_KEY,
                        secret_key=SECRET_KEY, region=REGION, account=ACCOUNT).start()
    yield running
    running.stop()


@pytest.fixture
def functions(api):
    api.run = Functions()
    return api.run


def client(api, secret=SECRET_KEY, **config):
    return boto3.client("lambda", endpoint_url=api.url, region_name=REGION, aws_access_key_id=ACCESS_KEY,
                        aws_secret_access_key=secret, config=Config(retries={"max_attempts": 1}, **config))


def error_of(call) -> tuple[int, str, str]:
    with pytest.raises(ClientError) as raised:
        call()
    response = raised.value.response
    return response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Code"], response["Error"]["Message"]


def test_a_request_response_invocation_answers_the_functions_result(api, functions):
    answer = client(api).invoke(FunctionName="finisher", Payload=json.dumps({"raceId": "R1"}))
    assert answer["StatusCode"] == 200 and answer["ExecutedVersion"] == "$LATEST" and "FunctionError" not in answer
    assert json.loads(answer["Payload"].read()) == {"function": "finisher", "echo": {"raceId": "R1"}}
    assert functions.runs == [("finisher", {"raceId": "R1"})]


@pytest.mark.parametrize("name", ["finisher", f"{ACCOUNT}:function:finisher", FINISHER_ARN, f"{FINISHER_ARN}:$LATEST",
                                  "finisher:$LATEST"])
def test_a_name_a_partial_arn_or_an_arn_reach_the_function_by_its_plain_name(api, functions, name):
    client(api).invoke(FunctionName=name, Payload=b"[1, 2]")
    assert functions.runs == [("finisher", [1, 2])]


def test_no_payload_is_an_empty_event(api, functions):
    client(api).invoke(FunctionName="finisher")
    assert functions.runs == [("finisher", {})]


def test_an_unknown_function_or_version_is_not_found_as_lambda_answers(api, functions):
    lam = client(api)
    assert error_of(lambda: lam.invoke(FunctionName="starter", Payload=b"{}")) == (
        404, "ResourceNotFoundException", f"Function not found: arn:aws:lambda:{REGION}:{ACCOUNT}:function:starter")
    status, code, message = error_of(lambda: lam.invoke(FunctionName="finisher", Qualifier="7", Payload=b"{}"))
    assert (status, code, message) == (404, "ResourceNotFoundException", f"Function not found: {FINISHER_ARN}:7")
    assert error_of(lambda: lam.invoke(FunctionName=f"{FINISHER_ARN}:live", InvocationType="Event"))[0] == 404
    assert functions.runs == []


def test_an_event_invocation_is_accepted_at_once_and_runs_in_the_background(api, functions):
    functions.release.clear()  # the function cannot finish until the test lets it
    answer = client(api).invoke(FunctionName=FINISHER_ARN, InvocationType="Event", Payload=b'{"raceId": "R2"}')
    assert answer["StatusCode"] == 202 and answer["Payload"].read() == b""
    assert functions.runs == []
    functions.release.set()
    assert functions.ran.wait(5)
    assert functions.runs == [("finisher", {"raceId": "R2"})]


def test_a_dry_run_checks_the_request_and_runs_nothing(api, functions):
    lam = client(api)
    assert lam.invoke(FunctionName="finisher", InvocationType="DryRun", Payload=b"{}")["StatusCode"] == 204
    assert error_of(lambda: lam.invoke(FunctionName="nope", InvocationType="DryRun"))[1] == "ResourceNotFoundException"
    assert functions.runs == []


def test_a_function_that_raises_is_a_200_with_the_function_error(api, functions):
    answer = client(api).invoke(FunctionName="broken", Payload=b"{}")
    assert answer["StatusCode"] == 200 and answer["FunctionError"] == "Unhandled"
    failure = json.loads(answer["Payload"].read())
    assert failure["errorType"] == "KeyError" and failure["errorMessage"] == "'raceId'"
    assert isinstance(failure["stackTrace"], list) and failure["stackTrace"]


def test_a_payload_that_is_not_json_or_a_bad_name_or_type_is_refused(api, functions):
    lam = client(api)
    status, code, _ = error_of(lambda: lam.invoke(FunctionName="finisher", Payload=b"{not json"))
    assert (status, code) == (400, "InvalidRequestContentException")
    assert error_of(lambda: lam.invoke(FunctionName="fin isher"))[:2] == (400, "ValidationException")
    bad_type = error_of(lambda: lam.invoke(FunctionName="finisher", InvocationType="Later"))
    assert bad_type[:2] == (400, "ValidationException")
    assert functions.runs == []


def test_only_requests_signed_with_the_stand_ins_credentials_are_served(api, functions):
    assert error_of(lambda: client(api, secret="wrong").invoke(FunctionName="finisher"))[:2] == (
        403, "InvalidSignatureException")
    assert error_of(lambda: client(api, signature_version=UNSIGNED).invoke(FunctionName="finisher"))[:2] == (
        403, "MissingAuthenticationTokenException")
    assert functions.runs == []


def test_another_lambda_operation_is_not_served(api, functions):
    assert error_of(lambda: client(api).get_function(FunctionName="finisher"))[:2] == (404, "UnknownOperationException")


def test_invoke_async_is_the_event_invocation_the_scheduler_makes(api, functions, caplog):
    with pytest.raises(LambdaError) as refused:
        api.invoke_async(FINISHER_ARN.replace("finisher", "starter"), "{}")
    assert (refused.value.status, refused.value.code) == (404, "ResourceNotFoundException")
    with caplog.at_level(logging.ERROR, logger="local.lambda_api"):
        api.invoke_async(f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:broken", '{"raceId": "R3"}')
        assert functions.ran.wait(5)
        for _ in range(100):
            if caplog.records:
                break
            threading.Event().wait(0.01)
    assert functions.runs == [("broken", {"raceId": "R3"})]
    assert [record.getMessage() for record in caplog.records] == ["asynchronous invocation of broken failed"]
