"""One synthesized app per session: the real app (with the cdk-nag plugin) and its template;
and one `make synth`, as a user runs it, for the tests of the CDK CLI's cloud assembly."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from aws_cdk import App, assertions

from stacks.app import STACK_NAME, build

ROOT = Path(__file__).resolve().parents[2]
PINNED_NODE = ROOT / "tools" / "node" / "node_modules" / ".bin"
# What would hide a Node warning from jsii, Node itself or the AWS SDK in the CDK CLI.
HIDES_NODE_WARNINGS = re.compile(r"JSII_SILENCE_WARNING_.*|NODE_NO_WARNINGS|NODE_OPTIONS"
                                 r"|AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED")


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


def user_environment() -> dict[str, str]:
    """The environment of a user's shell: no make of ours around it (nor its Node on PATH),
    nothing that hides a Node warning."""
    path = os.pathsep.join(entry for entry in os.environ["PATH"].split(os.pathsep) if Path(entry) != PINNED_NODE)
    return {key: value for key, value in os.environ.items()
            if key not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL") and not HIDES_NODE_WARNINGS.fullmatch(key)} | {
        "PATH": path, "CDK_DISABLE_CLI_TELEMETRY": "true"}


@dataclass(frozen=True)
class Synth:
    outdir: Path
    output: str  # what `make synth` printed, stdout and stderr as they came


@pytest.fixture(scope="session")
def make_synth(tmp_path_factory) -> Synth:
    """`make synth` (the Makefile's Node, `npx cdk synth --quiet`) into a folder of its own: the
    CDK CLI takes --output from CDK_OUTPUT."""
    out = tmp_path_factory.mktemp("make-synth")
    done = subprocess.run(["make", "--no-print-directory", "synth"], cwd=ROOT, env=user_environment() | {"CDK_OUTPUT": str(out)},
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert done.returncode == 0, done.stdout
    assert (out / f"{STACK_NAME}.template.json").is_file(), done.stdout
    return Synth(out, done.stdout)
