"""The route records (alleycat.edge.routes) hold together, and the deployment's settings load without the CDK."""

import ast
import importlib.util
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from alleycat.edge import contract, routes
from alleycat.edge.routes import ROUTES, SAMPLE_IDS, Route
from stacks import FUNCTIONS_DIR, ROOT
from stacks.settings import FUNCTIONS

by_name = pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)


def test_each_function_folder_is_a_routes_or_one_of_the_others():
    assert sorted(path.name for path in FUNCTIONS_DIR.iterdir() if (path / "app.py").is_file()) == sorted(FUNCTIONS)
    assert len({route.key for route in ROUTES}) == len({route.function for route in ROUTES}) == len(ROUTES)


@by_name
def test_a_record_is_found_by_its_function(route: Route):
    assert routes.by_function(route.function) is route


@by_name
def test_a_records_schemas_are_valid_and_its_sample_fits_them(route: Route):
    # Given the record's request and response schemas / Then each is a JSON schema (2020-12)
    Draft202012Validator.check_schema(route.response)
    assert route.response["type"] == "object" and route.status in (200, 201)
    # And its sample sends a body exactly when the route takes one, and one its schema accepts
    if route.request is None:
        assert route.sample.body is None
    else:
        Draft202012Validator.check_schema(route.request)
        Draft202012Validator(route.request).validate(route.sample.body)
    # And its sample's query names only what the route reads, and its path only the sample ids
    assert {pair.split("=")[0] for pair in route.sample.query.split("&") if pair} <= set(route.query)
    assert set(route.parameters) <= set(SAMPLE_IDS)
    # And the answer it expects names fields of the response
    assert set(route.sample.answer) <= set(route.response["properties"])


@by_name
def test_a_records_error_statuses_are_the_contracts(route: Route):
    statuses = route.error_statuses
    assert set(statuses) <= set(contract.ERRORS) and list(statuses) == sorted(statuses)
    assert {400, 404, 503} <= set(statuses) and ({401, 403} <= set(statuses)) == route.protected


def test_the_committed_sample_events_are_the_records_samples():
    # Given events/make_events.py, loaded as `python events/make_events.py` runs it
    spec = importlib.util.spec_from_file_location("make_events", ROOT / "events" / "make_events.py")
    make_events = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_events)
    # Then events/ holds exactly what it makes (and sam's --env-vars file)
    made = make_events.texts()
    committed = {path.name: path.read_text() for path in (ROOT / "events").glob("*.json") if path.name != "env.json"}
    assert committed == made, "run: .venv/bin/python events/make_events.py"
    assert set(made) == {f"{name}.json" for name in FUNCTIONS}


def top_level_imports(path: Path) -> set[str]:
    """The modules ``path`` imports when it is imported (not in functions, not for type checkers)."""
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


@pytest.mark.parametrize("module", ["stacks/__init__.py", "stacks/settings.py", "stacks/headers.py"])
def test_what_the_local_stack_and_the_bench_read_of_stacks_loads_no_cdk(module):
    # Given a module of stacks the local stack or the bench imports / Then importing it starts no jsii (seconds)
    imported = top_level_imports(ROOT / module)
    assert not [name for name in imported if name.split(".")[0] in ("aws_cdk", "constructs", "jsii")], imported
    assert not [name for name in imported if name.startswith(".")], imported  # nor another module of stacks


def test_the_route_table_loads_only_the_contract():
    # Given every handler imports it / Then it stays cheap: no schema validator, nothing but the contract's dicts
    assert top_level_imports(Path(routes.__file__)) == {"__future__", "dataclasses", "alleycat.edge.contract"}
