"""Bytecode in every asset: where synth finds its python3.13, what it does without one, what it ships.

``test_sam_local.py`` shows the other half: each synthesized function, run on python3.13 with
only its folders, compiles none of their source.
"""

from __future__ import annotations

import json
import runpy
import subprocess
from pathlib import Path

import pytest
from aws_cdk import App

from alleycat.edge.routes import ROUTES
from stacks import bytecode, python313
from stacks.app import build
from stacks.functions import logical_id
from stacks.settings import STREAM_PROCESSOR

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = [route.function for route in ROUTES] + [STREAM_PROCESSOR]


def fake_python(folder: Path, name: str, answer: str) -> Path:
    """An executable that answers the discovery probe as ``answer`` ("cpython 3 13 <path>")."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\necho {answer}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_python313(monkeypatch, tmp_path):
    """A host without any 3.13: nothing on PATH, an empty pyenv, this interpreter not counted."""
    monkeypatch.delenv(python313.VARIABLE, raising=False)
    monkeypatch.delenv(python313.ALLOW_NONE, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    monkeypatch.setattr(python313, "_runs_as_lambda", lambda: False)
    python313.find.cache_clear()
    bytecode.interpreter.cache_clear()
    yield tmp_path
    python313.find.cache_clear()
    bytecode.interpreter.cache_clear()


# --- where synth finds python3.13 ----------------------------------------------------------------


def test_the_variable_comes_first_and_must_name_a_python313(no_python313, monkeypatch):
    # Given a python3.13 on PATH and the variable naming a 3.12
    fake_python(no_python313 / "bin", "python3.13", "cpython 3 13 /usr/bin/python3.13")
    monkeypatch.setenv(python313.VARIABLE, str(fake_python(no_python313, "py312", "cpython 3 12 /x/python3.12")))
    # When looking / Then the variable is not passed over: synth stops and says why
    with pytest.raises(python313.NotFound, match="ALLEYCAT_PYTHON313=.* is not a CPython 3.13"):
        python313.find()
    # And naming a 3.13 it is the one used
    python313.find.cache_clear()
    monkeypatch.setenv(python313.VARIABLE, str(fake_python(no_python313, "py313", "cpython 3 13 /opt/py/bin/python3.13")))
    assert python313.find() == "/opt/py/bin/python3.13"


def test_python313_on_path_comes_before_pyenv(no_python313):
    # Given python3.13 on PATH and a pyenv 3.13 build
    fake_python(no_python313 / "bin", "python3.13", "cpython 3 13 /usr/bin/python3.13")
    fake_python(no_python313 / "pyenv/versions/3.13.1/bin", "python3.13", "cpython 3 13 /pyenv/3.13.1")
    # When looking / Then the interpreter PATH's python3.13 runs is used (its own path, not a shim's)
    assert python313.find() == "/usr/bin/python3.13"


def test_a_python313_on_path_that_does_not_run_is_passed_over(no_python313):
    # Given a pyenv shim for a version pyenv has not selected (it exits 127) and pyenv's builds
    shim = no_python313 / "bin" / "python3.13"
    fake_python(no_python313 / "bin", "python3.13", "")
    shim.write_text("#!/bin/sh\necho 'pyenv: python3.13: command not found' >&2\nexit 127\n")
    for version in ("3.13.0", "3.13.2", "3.13.10", "3.13.3rc1"):
        fake_python(no_python313 / f"pyenv/versions/{version}/bin", "python3.13", f"cpython 3 13 /pyenv/{version}")
    fake_python(no_python313 / "pyenv/versions/3.12.1/bin", "python3.13", "cpython 3 12 /pyenv/3.12.1")
    # When looking / Then pyenv's newest 3.13 final release is used
    assert python313.find() == "/pyenv/3.13.10"


def test_the_free_threaded_build_is_not_lambdas(no_python313):
    # Given only a free-threaded 3.13 (its probe answers "nogil")
    fake_python(no_python313 / "bin", "python3.13", "nogil 3 13 /usr/bin/python3.13t")
    # Then none is found
    with pytest.raises(python313.NotFound):
        python313.find()


def test_without_python313_synth_stops_and_says_how_to_get_one(no_python313):
    # Given no 3.13 anywhere and no opt-out / When synthesizing
    with pytest.raises(python313.NotFound) as stopped:
        build(App(outdir=str(no_python313 / "cdk.out")))
    # Then the message says where it looked, how to get one and how to go on without
    message = str(stopped.value)
    for hint in ("python3.13 on PATH", "pyenv install 3.13", "apt-get install python3.13", python313.VARIABLE,
                 f"{python313.ALLOW_NONE}=1"):
        assert hint in message


def test_cdk_synth_exits_with_that_message(no_python313, monkeypatch):
    # Given the variable naming something that is not a 3.13, no opt-out
    monkeypatch.setenv(python313.VARIABLE, str(fake_python(no_python313, "py", "cpython 3 11 /x")))
    monkeypatch.setenv("CDK_OUTDIR", str(no_python313 / "cdk.out"))
    # When the CDK app runs as `cdk synth` runs it (app.py as the main module)
    with pytest.raises(SystemExit) as stopped:
        runpy.run_path(str(ROOT / "app.py"), run_name="__main__")
    # Then it stops with the reason as its exit message: Python prints it, no traceback, and exits 1
    assert isinstance(stopped.value.code, str)
    assert stopped.value.code.startswith("cdk synth stopped: $ALLEYCAT_PYTHON313=")


def test_the_opt_out_warns_and_states_the_cost(no_python313, monkeypatch, capsys):
    # Given no 3.13 and ALLEYCAT_ALLOW_NO_BYTECODE=1
    monkeypatch.setenv(python313.ALLOW_NONE, "1")
    # When synth asks for the compiler / Then it goes on without, warning what every cold start pays
    assert bytecode.interpreter() is None
    assert bytecode.mode() == "source only"
    warning = capsys.readouterr().err
    assert "ship no bytecode" in warning and "every cold start" in warning and "docs/cold-start.md" in warning


def test_this_host_has_a_python313():
    # Given this project's machines (and CI): a 3.13 is found, so every synth compiles (make test
    # needs one: ALLEYCAT_ALLOW_NO_BYTECODE=1 lets synth go on without it, not the tests)
    assert python313.find_or_none() is not None, python313.HOW_TO_GET_ONE
    done = subprocess.run([python313.find(), "-c", "import sys; print(sys.version_info[:2])"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "(3, 13)"


# --- what the synthesized assets hold ----------------------------------------------------------------


def asset_folders(outdir: Path, template: dict) -> dict[str, Path]:
    """Each of the app's functions and layers -> its asset folder in the assembly."""
    folders = {}
    resources = template["Resources"]
    asset = lambda code: Path(outdir) / f"asset.{code['S3Key'].removesuffix('.zip')}"
    for name in FUNCTIONS:
        properties = resources[logical_id(name)]["Properties"]
        folders[name] = asset(properties["Code"])
        folders.update({path.name: path for path in (asset(resources[layer["Ref"]]["Properties"]["Content"])
                                                     for layer in properties["Layers"])})
    return folders


CHECK = """
import importlib.util, json, pathlib, sys
report = {}
for folder in json.load(sys.stdin):
    for source in pathlib.Path(folder).rglob("*.py"):
        pyc = pathlib.Path(importlib.util.cache_from_source(str(source)))
        header = pyc.read_bytes()[:16] if pyc.is_file() else b""
        report[str(source)] = (header[:4] == importlib.util.MAGIC_NUMBER,
                               int.from_bytes(header[4:8], "little") if header else None,
                               header[8:16] == importlib.util.source_hash(source.read_bytes()))
print(json.dumps(report))
"""


def test_every_module_of_every_function_and_layer_ships_python313_bytecode(make_synth):
    # Given `make synth`'s function and layer folders (two layers, every function)
    assert python313.find_or_none() is not None, python313.HOW_TO_GET_ONE
    folders = asset_folders(make_synth.outdir, make_synth.template)
    assert len(folders) == len(FUNCTIONS) + 2 and all(path.is_dir() for path in folders.values())
    # When python3.13 looks for each source file's .pyc, as its import system does
    done = subprocess.run([python313.find(), "-I", "-c", CHECK], input=json.dumps([str(p) for p in folders.values()]),
                          capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    # Then every source file has one: 3.13's magic number, unchecked hash-based, hashed from that very source
    assert len(report) > 300  # the layers' alleycat and Powertools modules and every handler
    assert {source: entry for source, entry in report.items() if entry != [True, 0b01, True]} == {}
