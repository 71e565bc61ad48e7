"""The Node of the toolchain: the CDK CLI and jsii run on a Node release jsii supports, the
one tools/node-path chooses (the machine's own 22 or 24, else Node 24 LTS from npm), and
`make synth` prints no Node deprecation or end-of-life warning with nothing silencing it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import HIDES_NODE_WARNINGS, PINNED_NODE, ROOT, user_environment

NODE_PATH = ROOT / "tools" / "node-path"
SUPPORTED = {22, 24}
# jsii's banners (end-of-life, deprecated, untested, known broken), Node's own deprecations,
# the AWS SDK's in the CDK CLI.
NODE_WARNING = re.compile(r"end-of-life|no longer be supported|not supported anymore|has not been tested with node"
                          r"|known compatibility issues|DeprecationWarning|NodeVersionSupportWarning"
                          r"|warning can be silenced", re.IGNORECASE)


def major(version: str) -> int:
    return int(version.strip().removeprefix("v").split(".")[0])


def make_recipe(recipe: str) -> str:
    """What one recipe line prints when the Makefile runs it (its PATH and environment)."""
    done = subprocess.run(["make", "--no-print-directory", "-s", "--eval", f"probe: ; @{recipe}", "probe"], cwd=ROOT,
                          env=user_environment(), stdin=subprocess.DEVNULL, capture_output=True, text=True, check=True)
    return done.stdout


def test_make_synth_prints_no_node_warning(make_synth):
    # Given `make synth` as a user runs it / Then neither jsii nor the CDK CLI warned about Node
    warnings = [line for line in make_synth.output.splitlines() if NODE_WARNING.search(line)]
    assert not warnings, make_synth.output


def test_make_recipes_run_a_node_jsii_supports_with_nothing_hiding_its_warnings():
    # Given the Makefile's recipes / Then `node` is a supported release, the one tools/node-path chose
    assert major(make_recipe("node --version")) in SUPPORTED
    chosen = subprocess.run([NODE_PATH], capture_output=True, text=True, check=True).stdout.strip()
    assert Path(make_recipe("command -v node").strip()).parent == Path(chosen)
    # And make sets nothing that would silence a Node warning
    variables = {line.split("=", 1)[0] for line in make_recipe("env").splitlines() if "=" in line}
    assert not {name for name in variables if HIDES_NODE_WARNINGS.fullmatch(name)}


def test_tests_run_jsii_on_the_makefiles_node():
    # Given this test session (under make or run directly) / Then its `node` is the one make's recipes get
    assert Path(shutil.which("node")) == Path(make_recipe("command -v node").strip())


# --- the rule ---------------------------------------------------------------------------------


def fake(folder: Path, name: str, script: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(f"#!/bin/sh\n{script}\n")
    (folder / name).chmod(0o755)
    return folder


def node_path(*args, path: str) -> subprocess.CompletedProcess:
    return subprocess.run([NODE_PATH, *args], env={"PATH": path}, capture_output=True, text=True)


@pytest.mark.parametrize(("version", "own"), [("v20.20.2", False), ("v22.1.0", True), ("v23.11.1", False),
                                              ("v24.3.0", True), ("v26.0.0", False)])
def test_the_machines_node_where_jsii_supports_it_else_the_pinned_one(tmp_path, version, own):
    # Given a machine whose node is that release
    machine = fake(tmp_path / "machine", "node", f"echo {version}")
    system = f"{machine}:/usr/bin:/bin"
    # When tools/node-path chooses / Then it is the machine's own only for 22 and 24
    chosen = node_path(path=system)
    assert chosen.returncode == 0 and Path(chosen.stdout.strip()) == (machine if own else PINNED_NODE)
    # And the PATH it gives is the machine's unchanged, or with the pinned folder first, once
    expected = system if own else f"{PINNED_NODE}:{system}"
    assert node_path("--path", path=system).stdout.strip() == expected
    assert node_path("--path", path=f"{PINNED_NODE}:{system}").stdout.strip() == expected


def test_where_npm_has_no_node_for_the_platform_it_says_what_to_install(tmp_path):
    # Given a Mac with Node 20 (npm has no Node 24 package for it)
    fake(tmp_path / "bin", "node", "echo v20.20.2")
    fake(tmp_path / "bin", "uname", 'case "$1" in -s) echo Darwin;; -m) echo arm64;; esac')
    system = f"{tmp_path / 'bin'}:/usr/bin:/bin"
    # When make asks (and when it would install) / Then it fails saying what to install, and installs nothing
    for args in ((), ("--path",), ("--install",)):
        answer = node_path(*args, path=system)
        assert answer.returncode == 1 and answer.stdout == ""
        assert "is v20.20.2" in answer.stderr and re.search(r"no Node 24\.\d+\.\d+ package for Darwin arm64", answer.stderr)
        assert "Install Node 24 LTS (or 22)" in answer.stderr
