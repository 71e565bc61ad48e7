"""The page-token keys: a secret CloudFormation generates, read at run time by the paged routes' functions only,
rotated by a function only Secrets Manager may invoke; no function's environment holds a key."""

import json

from alleycat.edge.routes import ROUTES
from alleycat.settings import PAGE_TOKEN_KEY, PAGE_TOKEN_SECRET
from stacks.functions import READ_KEYS, ROTATE_KEYS, logical_id
from stacks.settings import KEY_ROTATOR, PAGE_TOKEN_ROTATION_DAYS

from .conftest import of_type


def statements_of(resources: dict, role: dict) -> list[dict]:
    return [statement for policy in of_type(resources, "AWS::IAM::Policy").values()
            if {"Ref": role} in policy["Properties"]["Roles"]
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]]


def secret_actions(resources: dict, function: str, secret_id: str) -> set[str]:
    """The Secrets Manager actions ``function``'s role has, each on the secret and only on it."""
    role = resources[logical_id(function)]["Properties"]["Role"]["Fn::GetAtt"][0]
    actions = set()
    for statement in statements_of(resources, role):
        listed = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        if any(action.startswith("secretsmanager:") for action in listed):
            assert statement["Resource"] == {"Ref": secret_id}, function
            actions |= set(listed)
    return actions


def test_no_function_environment_holds_a_secret_and_paged_ones_name_the_secret_they_may_read(resources):
    (secret_id, secret), = of_type(resources, "AWS::SecretsManager::Secret").items()
    assert secret["Properties"]["GenerateSecretString"]["GenerateStringKey"] == "current"
    for function in of_type(resources, "AWS::Lambda::Function").values():
        variables = function["Properties"].get("Environment", {}).get("Variables", {})
        assert "resolve:secretsmanager" not in json.dumps(variables) and variables.get(PAGE_TOKEN_KEY, "") == ""
    for route in ROUTES:
        variables = resources[logical_id(route.function)]["Properties"]["Environment"]["Variables"]
        if route.paged:
            assert variables[PAGE_TOKEN_SECRET] == {"Ref": secret_id}, route.function
            assert secret_actions(resources, route.function, secret_id) == set(READ_KEYS)
        else:
            assert PAGE_TOKEN_SECRET not in variables and not secret_actions(resources, route.function, secret_id)


def test_the_keys_rotate_on_schedule_by_a_function_only_secrets_manager_invokes_for_this_secret(resources):
    (secret_id, _), = of_type(resources, "AWS::SecretsManager::Secret").items()
    (schedule,) = of_type(resources, "AWS::SecretsManager::RotationSchedule").values()
    rotator = logical_id(KEY_ROTATOR)
    assert schedule["Properties"] == {"SecretId": {"Ref": secret_id}, "RotationLambdaARN": {"Fn::GetAtt": [rotator, "Arn"]},
                                      "RotationRules": {"AutomaticallyAfterDays": PAGE_TOKEN_ROTATION_DAYS},
                                      "RotateImmediatelyOnUpdate": True}
    (permission,) = [p["Properties"] for p in of_type(resources, "AWS::Lambda::Permission").values()
                     if p["Properties"]["FunctionName"] == {"Fn::GetAtt": [rotator, "Arn"]}]
    assert (permission["Principal"], permission["SourceArn"]) == ("secretsmanager.amazonaws.com", {"Ref": secret_id})
    assert "SourceAccount" in permission
    assert secret_actions(resources, KEY_ROTATOR, secret_id) == set(ROTATE_KEYS)
    assert not any(statement["Action"] == "secretsmanager:GetRandomPassword"
                   for policy in of_type(resources, "AWS::IAM::Policy").values()
                   for statement in policy["Properties"]["PolicyDocument"]["Statement"])


def test_the_telemetry_function_has_the_memory_its_measured_batch_needs(resources):
    from stacks.settings import memory_mb
    assert resources[logical_id("post_telemetry")]["Properties"]["MemorySize"] == memory_mb("post_telemetry") > 256


def test_no_function_waits_longer_on_dynamodb_than_the_deployed_timeouts(resources):
    from alleycat.settings import DYNAMODB_READ_TIMEOUT_SECONDS as READ_TIMEOUT_VARIABLE
    for route in ROUTES:
        assert READ_TIMEOUT_VARIABLE not in resources[logical_id(route.function)]["Properties"]["Environment"]["Variables"]
