"""The Secrets Manager stand-in met by boto3, and the page-token keys' rotation (functions/rotate_page_token_key's
four steps) run by it as Secrets Manager runs them: tokens signed before a rotation still pass after it."""

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from alleycat import settings
from alleycat.aws import clients, page_keys
from alleycat.aws.page_keys import KeyRing
from alleycat.errors import BadRequest
from alleycat.storage import keys, tokens
from local import handlers
from local.secrets_manager import SecretsManagerApi
from stacks.settings import KEY_ROTATOR

ACCESS_KEY, SECRET_KEY, REGION = "AKIDLOCAL", "local-secret", "eu-west-1"
START = {"PK": {"S": "RACER#bob"}, "SK": {"S": "RACE#01JD5Z6Q8X0000000000000000"}}


def rotation_step(arn: str, version: str, step: str) -> None:
    """The deployed function's code, invoked as Secrets Manager invokes it."""
    handlers.invoke(KEY_ROTATOR, {"SecretId": arn, "ClientRequestToken": version, "Step": step})


@pytest.fixture
def manager(monkeypatch):
    api = SecretsManagerApi(rotation_step, access_key=ACCESS_KEY, secret_key=SECRET_KEY, region=REGION).start()
    for name, value in {"AWS_ENDPOINT_URL_SECRETS_MANAGER": api.url, "AWS_ACCESS_KEY_ID": ACCESS_KEY,
                        "AWS_SECRET_ACCESS_KEY": SECRET_KEY, "AWS_DEFAULT_REGION": REGION}.items():
        monkeypatch.setenv(name, value)
    clients.client.cache_clear()
    yield api
    api.stop()
    monkeypatch.undo()
    clients.client.cache_clear()
    settings.reset()
    page_keys.forget()


def client(api, secret=SECRET_KEY):
    return boto3.client("secretsmanager", endpoint_url=api.url, region_name=REGION, aws_access_key_id=ACCESS_KEY,
                        aws_secret_access_key=secret, config=Config(retries={"max_attempts": 1}))


@pytest.fixture
def sm(manager):
    return client(manager)


@pytest.fixture
def secret_arn(sm, monkeypatch):
    arn = sm.create_secret(Name="page-token-keys", SecretString='{"current": "generated"}')["ARN"]
    monkeypatch.setenv(settings.PAGE_TOKEN_SECRET, arn)
    settings.reset()
    page_keys.forget()
    return arn


def decode(token):
    return tokens.decode(token, "results:bob", {"PK": "RACER#bob"}, [keys.ENTRY])


def rotate(sm, arn) -> None:
    sm.rotate_secret(SecretId=arn)
    page_keys.forget()  # as a process started after the rotation


def test_tokens_outlive_one_rotation_not_two_and_every_version_is_staged_as_secrets_manager_stages_it(sm, secret_arn):
    first = tokens.encode(START, "results:bob")
    rotate(sm, secret_arn)  # the first rotation of a lone generated key: it still signs, a next one joins
    assert KeyRing.from_json(sm.get_secret_value(SecretId=secret_arn)["SecretString"]).current == "generated"
    rotate(sm, secret_arn)
    second = tokens.encode(START, "results:bob")
    assert second != first and decode(first).key == START
    rotate(sm, secret_arn)
    assert decode(second).key == START
    with pytest.raises(BadRequest):
        decode(first)
    stages = sm.describe_secret(SecretId=secret_arn)["VersionIdsToStages"]
    assert sorted(map(sorted, stages.values())) == [["AWSCURRENT", "AWSPENDING"], ["AWSPREVIOUS"]]


def test_a_step_secrets_manager_runs_again_does_nothing_twice_and_a_bad_ring_fails_its_test(sm, secret_arn):
    was = sm.get_secret_value(SecretId=secret_arn)["VersionId"]
    ring = KeyRing("generated").rotated("made by a first createSecret")
    version = "1" * 32
    sm.put_secret_value(SecretId=secret_arn, ClientRequestToken=version, SecretString=ring.to_json(), VersionStages=["AWSPENDING"])
    page_keys.rotate(secret_arn, version, "createSecret")  # again: its value is there, left as it is
    for _ in range(2):  # again: already AWSCURRENT, nothing to do
        page_keys.rotate(secret_arn, version, "finishSecret")
    current = sm.get_secret_value(SecretId=secret_arn)
    assert (current["VersionId"], KeyRing.from_json(current["SecretString"])) == (version, ring)
    assert sm.get_secret_value(SecretId=secret_arn, VersionStage="AWSPREVIOUS")["VersionId"] == was
    sm.put_secret_value(SecretId=secret_arn, ClientRequestToken="2" * 32, SecretString="{}", VersionStages=["AWSPENDING"])
    with pytest.raises(ValueError):
        page_keys.rotate(secret_arn, "2" * 32, "testSecret")  # no current key in it: finishSecret never runs
    with pytest.raises(ValueError):
        page_keys.rotate(secret_arn, "3" * 32, "createSecret")  # a version Secrets Manager did not stage


def test_the_stand_in_refuses_other_credentials_unknown_secrets_and_a_second_rotation_in_flight(manager, sm, secret_arn):
    def error_of(call):
        with pytest.raises(ClientError) as caught:
            call()
        return caught.value.response["Error"]["Code"]

    assert error_of(lambda: client(manager, secret="wrong").get_secret_value(SecretId=secret_arn)) == "UnrecognizedClientException"
    assert error_of(lambda: sm.get_secret_value(SecretId="nothing")) == "ResourceNotFoundException"
    sm.put_secret_value(SecretId=secret_arn, ClientRequestToken="2" * 32, SecretString="{}", VersionStages=["AWSPENDING"])
    assert error_of(lambda: sm.rotate_secret(SecretId=secret_arn)) == "InvalidRequestException"
    assert error_of(lambda: sm.update_secret_version_stage(SecretId=secret_arn, VersionStage="AWSCURRENT",
                                                           MoveToVersionId="2" * 32)) == "InvalidParameterException"
