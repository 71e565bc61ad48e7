"""One synthesized app per session: the real app (with the cdk-nag plugin) and its template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_cdk import App, assertions

from stacks.app import STACK_NAME, build


def synthesize(outdir, **context):
    """Build and synthesize the app exactly as ``app.py`` does; cdk-nag findings raise here."""
    app = App(outdir=str(outdir), context=context)
    build(app)
    return app.synth().get_stack_by_name(STACK_NAME)


@pytest.fixture(scope="session")
def outdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cdk.out")


@pytest.fixture(scope="session")
def stack_artifact(outdir):
    return synthesize(outdir)


@pytest.fixture(scope="session")
def metadata(outdir, stack_artifact) -> dict[str, list[dict]]:
    """Construct path -> metadata entries (inline in the manifest or in its side file)."""
    artifact = json.loads((outdir / "manifest.json").read_text())["artifacts"][STACK_NAME]
    entries = dict(artifact.get("metadata", {}))
    if "additionalMetadataFile" in artifact:
        entries.update(json.loads((outdir / artifact["additionalMetadataFile"]).read_text()))
    return entries


@pytest.fixture(scope="session")
def template_json(stack_artifact) -> dict:
    return stack_artifact.template


@pytest.fixture(scope="session")
def template(template_json) -> assertions.Template:
    return assertions.Template.from_json(template_json)


@pytest.fixture(scope="session")
def template_path(stack_artifact) -> str:
    return stack_artifact.template_full_path


@pytest.fixture(scope="session")
def resources(template_json) -> dict:
    return template_json["Resources"]


def of_type(resources: dict, type_: str) -> dict:
    return {key: res for key, res in resources.items() if res["Type"] == type_}
