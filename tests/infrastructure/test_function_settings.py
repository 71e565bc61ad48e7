"""Each deployed function is given what ``alleycat.settings`` says it needs: the check its cold start
makes, run here on the synthesized template, passes for every function."""

import pytest

from alleycat import settings
from stacks.functions import logical_id
from stacks.settings import FUNCTIONS

DEPLOYED = {"AWS_LAMBDA_FUNCTION_NAME": "Alleycat-SomeFunction-1A2B3C"}


def deployed_environment(resources: dict, function: str) -> dict[str, str]:
    """The function's variables as Lambda gives them: references to other resources (ARNs, the
    table's name, the page-token keys' secret) are resolved at deploy, here stand-in text."""
    variables = resources[logical_id(function)]["Properties"]["Environment"]["Variables"]
    return {**DEPLOYED, **{name: value if isinstance(value, str) else f"<{name} resolved at deploy>"
                           for name, value in variables.items()}}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_function_says_which_it_is_and_has_what_it_needs(resources, function):
    environment = deployed_environment(resources, function)
    assert environment[settings.FUNCTION] == function
    assert settings.read(environment).deployed  # MissingSetting otherwise, naming what it lacks


def test_the_stream_processor_finishes_races_and_starts_their_tickers_where_deployed(resources):
    found = settings.read(deployed_environment(resources, "stream_processor"))
    assert (found.finishes_races, found.ticks_races, found.publishes_boards) == (True, True, True)


def test_the_needs_name_only_functions_the_stack_deploys():
    assert set(settings.NEEDS) <= set(FUNCTIONS)
