"""What `sam local invoke -t cdk.out/Alleycat.template.json` does, without Docker.

The cloud assembly is the one `make synth` makes (the CDK CLI on the Makefile's Node); SAM
CLI's own providers read it and must find every function's code and every layer in local
folders (no layer ARN to download, nothing from SSM). Each function then runs in a fresh
python3.13 (Lambda's runtime; ``stacks/python313.py`` finds it) with only those folders and the
runtime's boto3 on its import path, with its ``events/`` file and the environment SAM would
give it (``--env-vars events/env.json``), against the embedded DynamoDB: what SAM would
execute inside its container. It also shows that every module of the function's code and
layers is loaded from the bytecode synth compiled, none compiled from source.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from alleycat.edge.contract import ERROR
from alleycat.edge.routes import ROUTES, Route
from local import sam_db
from stacks import LAYER_DIR, python313
from stacks.app import STACK_NAME
from stacks.functions import ENDPOINT_VARIABLE, logical_id
from stacks.layers import REQUIREMENTS, pinned_packages
from stacks.settings import (
    AUTHORIZER,
    FINISHER,
    FUNCTIONS,
    INGEST_CONSUMER,
    KEY_ROTATOR,
    STREAM_PROCESSOR,
    TICKER,
    TOKEN_GROUPS,
)

from . import lambda_runtime

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
RUNNER = Path(__file__).with_name("lambda_runtime.py")
# Lambda's python3.13; without one (synth then needed ALLEYCAT_ALLOW_NO_BYTECODE=1), the tests' own Python.
PYTHON = python313.find_or_none() or sys.executable
UNCHECKED_HASH = 0b01  # PEP 552 flags of a .pyc used whatever its source's file time
# What Lambda's python runtime ships besides the standard library (/var/runtime): boto3 and its closure.
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six", "urllib3")
TABLE = "alleycat-sam"
RACE_ID = sam_db.RACE_ID


@pytest.fixture(scope="module")
def assembly(make_synth) -> Path:
    """`make synth`'s cloud assembly, in a folder of its own."""
    return make_synth.outdir


@pytest.fixture(scope="module")
def provider(assembly):
    from samcli.lib.providers.sam_function_provider import SamFunctionProvider
    from samcli.lib.providers.sam_stack_provider import SamLocalStackProvider

    stacks, _ = SamLocalStackProvider.get_stacks(str(assembly / f"{STACK_NAME}.template.json"))
    return SamFunctionProvider(stacks)


def inside(path, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(folder.resolve())


# --- SAM resolves everything locally ---------------------------------------------------------


@pytest.mark.parametrize("function", FUNCTIONS)
def test_sam_finds_the_function_its_code_and_its_layers_in_the_assembly(provider, assembly, function):
    # Given the template as SAM CLI reads it / When looking the function up as `sam local invoke` does
    found = provider.get(logical_id(function))
    # Then its code is the asset folder holding its handler
    assert found is not None and found.packagetype == "Zip"
    assert (found.runtime, found.architecture, found.handler) == ("python3.13", "arm64", "app.handler")
    assert inside(found.codeuri, assembly) and (Path(found.codeuri) / "app.py").is_file()
    # And both layers are folders of the assembly, none an ARN to download
    assert len(found.layers) == 2
    for layer in found.layers:
        assert layer.is_defined_within_template and not layer.arn.startswith("arn:")
        assert inside(layer.codeuri, assembly) and (Path(layer.codeuri) / "python").is_dir()


def test_no_function_in_the_template_needs_a_layer_from_aws(provider):
    # Given every function SAM sees (CDK's own deployment handler included)
    functions = list(provider.get_all())
    assert len(functions) > len(FUNCTIONS)
    # Then none has a layer SAM would have to download with credentials
    remote = [(function.name, layer.arn) for function in functions for layer in function.layers
              if not layer.is_defined_within_template or layer.codeuri is None]
    assert not remote


def layer_named(provider, name: str) -> Path:
    [layer] = {layer.codeuri for layer in provider.get(logical_id(STREAM_PROCESSOR)).layers
               if name in layer.name}
    return Path(layer) / "python"


def test_dependencies_layer_holds_exactly_the_pinned_packages_for_lambda(provider):
    # Given the dependencies layer SAM mounts
    folder = layer_named(provider, "DependenciesLayer")
    # Then it holds every pinned package at its pinned version, and nothing else
    installed = {d.name.removesuffix(".dist-info").rsplit("-", 1)[0].lower().replace("_", "-") + "=="
                 + d.name.removesuffix(".dist-info").rsplit("-", 1)[1] for d in folder.glob("*.dist-info")}
    assert installed == {line.lower().replace("_", "-") for line in pinned_packages()}, REQUIREMENTS
    # And no boto3 of its own (the runtime's is used) and wheels only for any python or Lambda's arm64 python3.13
    assert not (folder / "boto3").exists() and not (folder / "botocore").exists()
    tags = {line.split(":", 1)[1].strip() for wheel in folder.glob("*.dist-info/WHEEL")
            for line in wheel.read_text().splitlines() if line.startswith("Tag:")}
    assert tags and all(tag.endswith("-none-any") or (tag.startswith("cp313-") and "aarch64" in tag) for tag in tags), tags
    extensions = [path.name for path in folder.rglob("*.so")]
    assert all("cpython-313-aarch64-linux-gnu" in name for name in extensions)


def test_shared_layer_is_its_python_folder_without_the_packaging_that_installs_it_in_the_venv(provider):
    # Given the shared layer SAM mounts, from layers/alleycat (also a package: pyproject.toml, `pip install -e`)
    folder = layer_named(provider, "SharedLayer")
    # Then it holds python/alleycat, every module of it, and nothing of the packaging (pyproject.toml, egg-info)
    assert [path.name for path in folder.parent.iterdir()] == ["python"]
    assert [path.name for path in folder.iterdir()] == ["alleycat"]
    source = LAYER_DIR / "python"
    assert sorted(p.relative_to(folder) for p in folder.rglob("*.py")) == sorted(p.relative_to(source) for p in source.rglob("*.py"))


# --- each function run as SAM would run it ---------------------------------------------------


@pytest.fixture(scope="module")
def runtime_packages(tmp_path_factory) -> Path:
    """Stands in for /var/runtime: boto3 and its dependencies, nothing else."""
    folder = tmp_path_factory.mktemp("var-runtime")
    for name in RUNTIME_PACKAGES:
        source = Path(import_module(name).__file__)
        source = source.parent if source.name == "__init__.py" else source
        (folder / source.name).symlink_to(source)
    return folder


def sam_environment(function, endpoint: str) -> dict:
    """The variables SAM CLI gives the function with ``--env-vars events/env.json``
    (the endpoint pointed at the embedded DynamoDB), resolved by SAM's own code."""
    from samcli.local.lambdafn.env_vars import EnvironmentVariables

    overrides = json.loads((EVENTS / "env.json").read_text())["Parameters"]
    overrides.update(TABLE_NAME=TABLE, **{ENDPOINT_VARIABLE: endpoint})
    # SAM passes the caller's credentials and region; these are the ones the table was made with
    # (a DynamoDB Local without -sharedDb keeps one database per access key and region).
    credentials = {"key": os.environ["AWS_ACCESS_KEY_ID"], "secret": os.environ["AWS_SECRET_ACCESS_KEY"],
                   "region": os.environ["AWS_DEFAULT_REGION"]}
    return EnvironmentVariables(function.name, function.memory, function.timeout, function.handler,
                                function.logging_config, variables=function.environment["Variables"],
                                override_values=overrides, aws_creds=credentials).resolve()


def run_in_fresh_interpreter(function, event: dict, environment: dict, runtime: Path, tmp_path: Path) -> dict:
    result = tmp_path / f"{function.name}.json"
    spec = {"task_root": function.codeuri, "layers": [layer.codeuri for layer in function.layers],
            "runtime": str(runtime), "handler": function.handler, "event": event,
            "function": function.name, "result": str(result)}
    completed = subprocess.run([PYTHON, "-s", "-S", "-P", "-B", str(RUNNER)], input=json.dumps(spec), text=True,
                               env=lambda_runtime.environment(environment, spec), capture_output=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return json.loads(result.read_text())


ORDER = sam_db.ORDER  # each sample event finds what the ones before it wrote


@pytest.fixture(scope="module")
def invocations(provider, runtime_packages, tmp_path_factory, dynamodb_local) -> dict[str, dict]:
    tmp_path = tmp_path_factory.mktemp("invocations")
    sam_db.prepare(dynamodb_local, TABLE)  # what `make sam-db` prepares
    results = {}
    for name in ORDER:
        function = provider.get(logical_id(name))
        event = json.loads((EVENTS / f"{name}.json").read_text())
        results[name] = run_in_fresh_interpreter(function, event, sam_environment(function, dynamodb_local.url),
                                                 runtime_packages, tmp_path)
    return results


def test_the_run_order_covers_every_function_but_the_key_rotator():
    # The rotator's every step calls Secrets Manager, which SAM does not emulate: its steps run against the local
    # stand-in instead (tests/integration/test_local_secrets.py); its module is the paged functions' too.
    assert sorted(ORDER) == sorted(set(FUNCTIONS) - {KEY_ROTATOR})


def body(invocations, function: str) -> tuple[int, dict]:
    response = invocations[function]["response"]
    return response["statusCode"], json.loads(response["body"])


def matches(value, expected) -> bool:
    """``value`` as a sample's ``answer`` describes it (alleycat.edge.routes.Sample): an object with these
    fields, a list of exactly these items in order or, ending in ``...``, holding them among others."""
    if isinstance(expected, dict):
        return isinstance(value, dict) and all(k in value and matches(value[k], v) for k, v in expected.items())
    if isinstance(expected, list):
        if not isinstance(value, list):
            return False
        if expected and expected[-1] is ...:
            return all(any(matches(item, wanted) for item in value) for wanted in expected[:-1])
        return len(value) == len(expected) and all(map(matches, value, expected))
    if isinstance(value, bool) or isinstance(expected, bool):
        return value is expected
    return value == expected


def test_answers_are_matched_as_the_records_say():
    assert matches({"items": [{"a": 1, "b": 2}], "x": 3}, {"items": [{"a": 1}]})
    assert not matches({"items": [{"a": 1}, {"a": 2}]}, {"items": [{"a": 1}]})
    assert matches({"items": [{"a": 2}, {"a": 1}]}, {"items": [{"a": 1}, ...]})
    assert not matches({"items": [{"a": 2}]}, {"items": [{"a": 1}, ...]})
    assert matches({"score": 264.88, "n": 1}, {"score": 264.88, "n": 1.0}) and not matches({"n": True}, {"n": 1})


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_route_function_answers_its_sample_event(invocations, route: Route):
    # Given the function run as SAM runs it, with its events/ file
    status, answer = body(invocations, route.function)
    # Then it answers 2xx, in the order make sam-db prints (docs/local.md), and as its record says: its
    # status, its response schema, its sample's answer
    assert 200 <= status < 300 and status == (route.sample.status or route.status), answer
    Draft202012Validator(route.response if status == route.status else ERROR).validate(answer)
    assert matches(answer, route.sample.answer), (answer, route.sample.answer)
    # And what it creates is new: not the sample race make sam-db wrote
    if status == 201:
        assert answer["raceId"] != RACE_ID


def test_the_finisher_finishes_the_sample_race_its_end_long_past(invocations):
    # Given what a race's finish schedule sends / Then the race, open and past its end, is finished at once
    assert invocations[FINISHER]["response"] == {"raceId": RACE_ID, "outcome": "finished"}


def test_the_ticker_with_no_event_api_leaves_at_once(invocations):
    # Given what the stream processor sends it for a race just created (sam's functions have no Event API)
    # Then it returns at once, having ticked nothing
    assert invocations[TICKER]["response"] == {"raceId": RACE_ID, "outcome": "left"}


def test_the_token_trigger_leaves_a_racers_token_as_cognito_made_it(invocations):
    # Given a racer's sign-in (no admin group) / Then the event comes back without an override (and no call)
    assert invocations[TOKEN_GROUPS]["response"]["response"] == {"claimsAndScopeOverrideDetails": None}


def test_the_log_consumer_counts_nothing_twice_of_seconds_also_sent_over_http(invocations):
    # Given the Kinesis record of racer-1's message of seconds that came over HTTP first / Then no record failed
    # (and get_race_leaderboard, run later, shows the HTTP values' score: the first value won)
    assert invocations[INGEST_CONSUMER]["response"] == {"batchItemFailures": []}


def test_stream_processor_handles_its_sample_record(invocations):
    # Given the stream record of the sample telemetry / Then no record is reported as failed
    # (and get_race_leaderboard, run after it, shows the score it wrote)
    assert invocations[STREAM_PROCESSOR]["response"] == {"batchItemFailures": []}


@pytest.mark.parametrize("function", ORDER)
def test_function_imports_nothing_from_outside_its_folders(invocations, function):
    # Given the fresh interpreter's modules / Then each came from the code, a layer, boto3 or the stdlib
    assert invocations[function]["outside"] == []


def pyc_flags(path: str) -> int:
    """The PEP 552 flags word of a .pyc (after its magic number)."""
    with open(path, "rb") as pyc:
        return int.from_bytes(pyc.read(8)[4:8], "little")


@pytest.mark.parametrize("function", ORDER)
def test_function_loads_its_code_and_layers_from_bytecode_python313_accepts(invocations, function):
    # Given the function run on python3.13 with only its folders, read-only (-B)
    # (make test needs one: ALLEYCAT_ALLOW_NO_BYTECODE=1 lets synth go on without it, not this test)
    assert python313.find_or_none() is not None, python313.HOW_TO_GET_ONE
    result = invocations[function]
    assert result["python"] == [3, 13]
    # Then no module of its code or layers was compiled from source, on import or in its first call
    assert result["compiled"] == [], "compiled from source at import: cdk synth no longer ships their bytecode"
    # And each of them (the handler, alleycat, Powertools, ...) came from an unchecked hash-based .pyc,
    # which Lambda uses although the asset zip reset every file time
    assert "app" in result["bytecode"] and any(name.startswith("alleycat.") for name in result["bytecode"])
    assert all(cached and pyc_flags(cached) == UNCHECKED_HASH for cached in result["bytecode"].values()), \
        result["bytecode"]


# Never on the cold path: the X-Ray SDK (Lambda's active tracing needs none), Powertools'
# event handler and batch packages (their __init__ loads every resolver and event class, and
# asyncio). Deferred to the call that needs them: JSON-schema validation (write routes, at
# their first body), page tokens and their keys (paged reads, at a page that has a next one) and thread pools
# (``alleycat.storage.parallel``: a batch of two requests or more).
NEVER = ("aws_xray_sdk", "aws_lambda_powertools.event_handler", "aws_lambda_powertools.utilities.batch",
         "aws_lambda_powertools.utilities.data_classes", "asyncio")
DEFERRED = ("fastjsonschema", "alleycat.storage.tokens", "alleycat.aws.page_keys", "concurrent.futures")
# The telemetry log's consumer runs every call through Powertools' batch processor (Kinesis records, partial
# batch failures): what that package loads is what each of its calls uses (and its environments live long:
# one per shard and parallel batch).
USED_ON_EVERY_CALL = {INGEST_CONSUMER: ("aws_lambda_powertools.utilities.batch", "aws_lambda_powertools.utilities.data_classes",
                                        "asyncio", "concurrent.futures")}


@pytest.mark.parametrize("function", [name for name in ORDER if name not in (TOKEN_GROUPS, AUTHORIZER)])
def test_a_handler_imports_neither_the_xray_sdk_nor_what_it_defers(invocations, function):
    # Given the modules the fresh interpreter held once the function's handler module was imported
    modules = set(invocations[function]["cold_start"])
    # Then nothing it must never load, nor anything deferred to the call that needs it, is loaded
    used = USED_ON_EVERY_CALL.get(function, ())
    assert sorted(m for m in modules if m.startswith(NEVER + DEFERRED) and not m.startswith(used)) == []
    # And the observability it keeps is there (the check above cannot pass by importing nothing)
    assert {"aws_lambda_powertools.logging.logger", "aws_lambda_powertools.metrics"} <= modules


def test_the_token_trigger_loads_neither_powertools_nor_boto3_for_a_racer(invocations):
    # Given every sign-in and refresh waits for it / Then its cold start is the standard library and
    # the contract (the admin group's name); boto3 waits for an admin's sign-in
    modules = set(invocations[TOKEN_GROUPS]["cold_start"])
    assert not [m for m in modules if m.startswith(("aws_lambda_powertools", "boto3", "botocore", "aws_xray_sdk"))]
    assert "alleycat.edge.contract" in modules


def test_the_mqtt_authorizer_loads_the_standard_library_alone(invocations):
    # Given anyone can make it run, and a mass start's connects wait for its new instances / Then its cold
    # start is the standard library and the layer's authorizer: no Powertools, no boto3, no cryptography
    modules = set(invocations[AUTHORIZER]["cold_start"])
    assert not [m for m in modules if m.startswith(("aws_lambda_powertools", "boto3", "botocore", "aws_xray_sdk",
                                                    "cryptography", "urllib.request", "asyncio"))]
    assert {"alleycat.edge.ingest_auth", "alleycat.settings"} <= modules
    assert sorted(m for m in modules if m.startswith("alleycat")) == ["alleycat", "alleycat.edge", "alleycat.edge.ingest_auth",
                                                                      "alleycat.settings"]


def test_the_mqtt_authorizer_refuses_its_samples_token_of_another_pool_with_no_policy(invocations):
    # Given IoT Core's event for a connection whose token is an example pool's / Then it is not authenticated,
    # is granted nothing, and its answer is IoT's response shape
    assert invocations[AUTHORIZER]["response"] == {"isAuthenticated": False, "principalId": "unauthenticated",
                                                   "disconnectAfterInSeconds": 300, "refreshAfterInSeconds": 300,
                                                   "policyDocuments": []}


def test_packages_come_from_the_layers_and_the_runtime(provider, runtime_packages, invocations):
    # Given the telemetry function's run / Then Powertools came from the dependencies layer,
    # the shared code from the shared layer, botocore from the runtime (the client is botocore's: boto3
    # itself is never imported)
    loaded_from = invocations["post_telemetry"]["loaded_from"]
    assert Path(loaded_from["aws_lambda_powertools"]) == layer_named(provider, "DependenciesLayer")
    assert Path(loaded_from["fastjsonschema"]) == layer_named(provider, "DependenciesLayer")
    assert Path(loaded_from["alleycat"]) == layer_named(provider, "SharedLayer")
    assert Path(loaded_from["botocore"]) == runtime_packages and "boto3" not in loaded_from


def test_sam_environment_points_the_functions_at_the_given_table_and_endpoint(provider):
    # Given SAM's environment for a function with docs/local.md's --env-vars
    environment = sam_environment(provider.get(logical_id("get_race")), "http://127.0.0.1:1")
    # Then the table name and endpoint override reach it (SAM overrides only declared variables)
    assert environment["TABLE_NAME"] == TABLE and environment[ENDPOINT_VARIABLE] == "http://127.0.0.1:1"
    assert environment["AWS_SAM_LOCAL"] == "true"


def test_an_empty_endpoint_variable_leaves_the_client_on_the_aws_endpoint(monkeypatch):
    # Given the deployed functions' empty AWS_ENDPOINT_URL_DYNAMODB
    from alleycat.storage import dynamo

    monkeypatch.setenv(ENDPOINT_VARIABLE, "")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    # When the layer makes its client / Then it talks to the regional AWS endpoint
    dynamo.client.cache_clear()
    try:
        assert dynamo.client().meta.endpoint_url == "https://dynamodb.eu-west-1.amazonaws.com"
    finally:
        dynamo.client.cache_clear()
    assert os.environ[ENDPOINT_VARIABLE] == ""
