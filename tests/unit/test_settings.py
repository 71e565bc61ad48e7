"""The functions' settings (``alleycat.settings``): features off where a variable is unset, a loud
error at a deployed function's cold start when it lacks one it needs, read once a process."""

import importlib

import pytest

from alleycat import settings

# A deployed function's environment as Lambda gives it (the names are those docs/ and stacks/ use).
LAMBDA = {"AWS_LAMBDA_FUNCTION_NAME": "Alleycat-StreamProcessorFunction-1A2B3C", "AWS_REGION": "eu-west-1"}
STREAM_PROCESSOR = {**LAMBDA, "ALLEYCAT_FUNCTION": "stream_processor", "TABLE_NAME": "alleycat",
                    "FINISHER_ARN": "arn:aws:lambda:eu-west-1:123456789012:function:finisher",
                    "TICKER_ARN": "arn:aws:lambda:eu-west-1:123456789012:function:ticker",
                    "EVENT_API_URL": "https://example.appsync-api.eu-west-1.amazonaws.com/event"}


def test_outside_lambda_an_empty_environment_turns_every_feature_off():
    found = settings.read({})
    assert (found.finishes_races, found.ticks_races, found.publishes_boards) == (False, False, False)
    assert found.deployed is False and found.table_name is None


def test_a_variable_set_empty_is_unset():
    found = settings.read({"FINISHER_ARN": "", "EVENT_API_URL": ""})
    assert (found.finishes_races, found.publishes_boards) == (False, False)


def test_a_deployed_stream_processor_with_its_environment_has_finishing_and_pushing_on():
    found = settings.read(STREAM_PROCESSOR)
    assert found.deployed and found.function == "stream_processor"
    assert (found.finishes_races, found.ticks_races, found.publishes_boards) == (True, True, True)
    assert found.finisher_arn == STREAM_PROCESSOR["FINISHER_ARN"] and found.region == "eu-west-1"


@pytest.mark.parametrize("variable", ["FINISHER_ARN", "TICKER_ARN", "EVENT_API_URL", "TABLE_NAME"])
def test_a_deployed_stream_processor_lacking_a_variable_fails_naming_it(variable):
    environment = {name: value for name, value in STREAM_PROCESSOR.items() if name != variable}
    with pytest.raises(settings.MissingSetting, match=variable) as raised:
        settings.read(environment)
    assert "stream_processor" in str(raised.value)


def test_a_deployed_stream_processor_with_a_variable_set_empty_fails_naming_it():
    with pytest.raises(settings.MissingSetting, match="FINISHER_ARN"):
        settings.read({**STREAM_PROCESSOR, "FINISHER_ARN": ""})


def test_the_deployed_finisher_needs_its_schedule_group_role_and_dead_letters():
    finisher = {**LAMBDA, "ALLEYCAT_FUNCTION": "finish_due_race", "TABLE_NAME": "alleycat"}
    with pytest.raises(settings.MissingSetting) as raised:
        settings.read(finisher)
    assert all(name in str(raised.value) for name in
               ("FINISH_SCHEDULE_GROUP", "FINISH_SCHEDULE_ROLE_ARN", "FINISH_DEAD_LETTER_ARN"))
    found = settings.read({**finisher, "FINISH_SCHEDULE_GROUP": "finishes", "FINISH_DEAD_LETTER_ARN": "arn:aws:sqs:q",
                           "FINISH_SCHEDULE_ROLE_ARN": "arn:aws:iam::123456789012:role/finishes"})
    assert found.finish_schedule_group == "finishes"


def test_a_deployed_paged_route_needs_the_page_token_secret_and_an_unpaged_one_does_not():
    # GET /races answers with nextToken (the contract); GET /races/{raceId} does not. A key itself will not do.
    with pytest.raises(settings.MissingSetting, match="PAGE_TOKEN_SECRET"):
        settings.read({**LAMBDA, "ALLEYCAT_FUNCTION": "get_races", "TABLE_NAME": "alleycat", "PAGE_TOKEN_KEY": "k"})
    assert settings.read({**LAMBDA, "ALLEYCAT_FUNCTION": "get_races", "TABLE_NAME": "alleycat",
                          "PAGE_TOKEN_SECRET": "arn:s"}).page_token_secret == "arn:s"
    assert settings.read({**LAMBDA, "ALLEYCAT_FUNCTION": "get_race", "TABLE_NAME": "alleycat"}).deployed


def test_a_deployed_function_that_does_not_say_which_it_is_fails():
    with pytest.raises(settings.MissingSetting, match="ALLEYCAT_FUNCTION"):
        settings.read({**LAMBDA, "TABLE_NAME": "alleycat"})
    with pytest.raises(settings.MissingSetting, match="no_such_function"):
        settings.read({**LAMBDA, "ALLEYCAT_FUNCTION": "no_such_function", "TABLE_NAME": "alleycat"})


def test_the_token_trigger_needs_nothing():
    assert settings.read({**LAMBDA, "ALLEYCAT_FUNCTION": "token_groups"}).deployed


def test_under_sam_local_the_templates_empty_references_are_not_an_error():
    # sam local invoke gives every variable the template declares, references to other resources empty
    found = settings.read({**STREAM_PROCESSOR, "FINISHER_ARN": "", "AWS_SAM_LOCAL": "true"})
    assert found.deployed is False and found.finishes_races is False


def test_numbers_and_switches_are_read_as_such():
    found = settings.read({"DYNAMODB_READ_TIMEOUT_SECONDS": "30", "POWERTOOLS_METRICS_DISABLED": "TRUE"})
    assert (found.dynamodb_read_timeout_seconds, found.metrics_enabled) == (30.0, False)
    unset = settings.read({})
    # unset: the gateway's own read timeout, metrics on
    assert (unset.dynamodb_read_timeout_seconds, unset.metrics_enabled) == (None, True)
    # the fan-in on unless switched off (docs/fan-in.md): the chunk path only where it is set "off"
    assert (unset.fan_in, settings.read({settings.FAN_IN: "on"}).fan_in, settings.read({settings.FAN_IN: "OFF"}).fan_in) == (
        True, True, False)


def test_the_region_is_lambdas_then_the_sdks_default():
    assert settings.read({"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "us-west-2"}).region == "eu-west-1"
    assert settings.read({"AWS_DEFAULT_REGION": "us-west-2"}).region == "us-west-2"


def test_settings_are_read_once_until_reset(monkeypatch):
    monkeypatch.setenv("EVENT_API_URL", "http://first/event")
    settings.reset()
    first = settings.load()
    monkeypatch.setenv("EVENT_API_URL", "http://second/event")
    assert settings.load() is first and first.event_api_url == "http://first/event"
    settings.reset()
    assert settings.load().event_api_url == "http://second/event"


def test_the_settings_cannot_be_changed_once_read():
    with pytest.raises(AttributeError):
        settings.read({}).table_name = "another"  # type: ignore[misc]


def test_a_deployed_function_lacking_what_it_needs_fails_when_it_imports_the_settings(monkeypatch):
    # Given the environment of a deployed stream processor that was not given its finisher
    for name, value in STREAM_PROCESSOR.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("FINISHER_ARN", raising=False)
    monkeypatch.delenv("AWS_SAM_LOCAL", raising=False)
    # When its code loads the settings module (its cold start) / Then that fails, naming the variable
    try:
        with pytest.raises(RuntimeError, match="FINISHER_ARN") as raised:
            importlib.reload(settings)
        assert type(raised.value).__name__ == "MissingSetting"
    finally:
        monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME")
        importlib.reload(settings)


def test_a_variable_a_caller_cannot_do_without_is_its_text_or_an_error_naming_it():
    found = settings.read({"FINISH_SCHEDULE_GROUP": "finishes"})
    assert found.needed("FINISH_SCHEDULE_GROUP") == "finishes"
    with pytest.raises(settings.MissingSetting, match="FINISH_DEAD_LETTER_ARN"):
        found.needed("FINISH_DEAD_LETTER_ARN")
