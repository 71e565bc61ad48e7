"""The synthesized app, once a session as a user makes it (and once more in this process with
``-c throwaway=true``, test_throwaway.py): one ``make synth`` (the CDK CLI on the Makefile's Node,
``app.py``'s ``build`` with cdk-nag, every asset bundled and compiled), whose cloud assembly every
test reads: the template's shape, cdk-nag's acknowledgments, cfn-lint, the packaged assets (bytecode,
``sam local invoke``), Node's warnings. A second synth in this process, assets unbundled, gave the
same template but for each asset's folder (asserted until 2026-11-29) and cost 6.2 s of CPU a run.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# jsii (started by importing aws_cdk) and the CDK CLI run on the Node tools/node-path chooses, as
# under make (which has put it first on PATH already; pytest run directly gets it here).
_node = subprocess.run([str(ROOT / "tools" / "node-path"), "--path"], capture_output=True, text=True)
if _node.returncode == 0:
    os.environ["PATH"] = _node.stdout.strip()

from aws_cdk import App, assertions  # noqa: E402

from stacks.app import STACK_NAME, build  # noqa: E402

CDK_JSON_CONTEXT = json.loads((ROOT / "cdk.json").read_text())["context"]
# What the CDK CLI adds to the app's context on every synth (besides cdk.json's).
CLI_CONTEXT = {"aws:cdk:enable-path-metadata": True, "aws:cdk:enable-asset-metadata": True,
               "aws:cdk:version-reporting": True}
NO_BUNDLING = {"aws:cdk:bundling-stacks": []}  # the stacks whose assets are bundled (the CLI names those a command needs)
PINNED_NODE = ROOT / "tools" / "node" / "node_modules" / ".bin"
# What would hide a Node warning from jsii, Node itself or the AWS SDK in the CDK CLI.
HIDES_NODE_WARNINGS = re.compile(r"JSII_SILENCE_WARNING_.*|NODE_NO_WARNINGS|NODE_OPTIONS"
                                 r"|AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED")


def synthesize(outdir, **context):
    """Build and synthesize the app as ``cdk synth`` does, assets left unbundled; cdk-nag findings raise here."""
    app = App(outdir=str(outdir), context={**CDK_JSON_CONTEXT, **CLI_CONTEXT, **NO_BUNDLING, **context})
    build(app)
    return app.synth().get_stack_by_name(STACK_NAME)


@pytest.fixture(scope="session")
def outdir(make_synth) -> Path:
    return make_synth.outdir


@pytest.fixture(scope="session")
def metadata(outdir) -> dict[str, list[dict]]:
    """Construct path -> metadata entries (inline in the manifest or in its side file)."""
    artifact = json.loads((outdir / "manifest.json").read_text())["artifacts"][STACK_NAME]
    entries = dict(artifact.get("metadata", {}))
    if "additionalMetadataFile" in artifact:
        entries.update(json.loads((outdir / artifact["additionalMetadataFile"]).read_text()))
    return entries


@pytest.fixture(scope="session")
def template_json(make_synth) -> dict:
    return make_synth.template


@pytest.fixture(scope="session")
def template(template_json) -> assertions.Template:
    return assertions.Template.from_json(template_json)


@pytest.fixture(scope="session")
def template_path(make_synth) -> str:
    return str(make_synth.template_path)


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

    @property
    def template_path(self) -> Path:
        return self.outdir / f"{STACK_NAME}.template.json"

    @functools.cached_property
    def template(self) -> dict:
        return json.loads(self.template_path.read_text())


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
