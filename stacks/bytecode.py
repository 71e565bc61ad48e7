"""Every function folder and layer ships bytecode for Lambda's python3.13, compiled by ``cdk synth``.

Lambda's code folders are read-only: a module without a matching ``__pycache__/*.cpython-313.pyc``
is compiled from source at every cold start. So each asset is built by CDK local bundling (on
the host, no Docker): the folder is copied (without any ``__pycache__`` of the working tree),
then compiled by a CPython 3.13 (``stacks/python313.py`` says where it is looked for) as its
files will sit in Lambda (``/var/task`` for a function, ``/opt/python`` for a layer, so each
code object's file name is the one Lambda loads it from).

The ``.pyc`` files are **unchecked hash-based** (PEP 552, ``--invalidation-mode
unchecked-hash``): CDK's asset zips do not keep file times, so timestamp-based bytecode would
not match its source in Lambda and would be ignored; a checked hash would make every import
read and hash its source. Unchecked bytecode is only as fresh as the bundle, which is rebuilt
whenever the source changes (the asset hash is the source's).

Without a 3.13, synth stops and says how to get one, unless ``ALLEYCAT_ALLOW_NO_BYTECODE=1``:
then it warns and the assets ship source only.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import jsii
from aws_cdk import AssetHashType, BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_

from . import python313

ASSET_EXCLUDES = ["__pycache__", "*.pyc"]
# The shared layer's folder is also a package installed in the venv (layers/alleycat/pyproject.toml,
# `pip install -e`): its packaging files, and what setuptools writes beside the code, stay out of the asset.
PACKAGING_EXCLUDES = ["pyproject.toml", "*.egg-info", "build"]
TASK_ROOT = "/var/task"  # where Lambda puts a function's code
LAYERS_ROOT = "/opt"     # where Lambda extracts each layer (its python/ folder is on sys.path)
BYTECODE = "ALLEYCAT_BYTECODE"  # in the bundling options, so the asset hash says what was built
NO_BYTECODE_COST = (
    "every cold start in Lambda then compiles every module it imports from the function and its layers "
    "(measured on python3.13: 1.6-1.9x the CPU of a bare boto3 client and its first request, instead of "
    "1.1x with bytecode; docs/cold-start.md)")


def bundling_image() -> DockerImage:
    """Required by the API but never pulled: local bundling always succeeds or raises."""
    return DockerImage.from_registry("public.ecr.aws/sam/build-python3.13")


@functools.cache
def interpreter() -> str | None:
    """The CPython 3.13 that compiles the assets; None (after a warning) only when none is found
    and ``ALLEYCAT_ALLOW_NO_BYTECODE=1``; otherwise raises ``python313.NotFound``."""
    try:
        return python313.find()
    except python313.NotFound:
        if os.environ.get(python313.ALLOW_NONE) != "1":
            raise
    print(f"WARNING: no CPython 3.13 found and {python313.ALLOW_NONE}=1: the functions and layers ship no "
          f"bytecode; {NO_BYTECODE_COST}.", file=sys.stderr)
    return None


def mode() -> str:
    """What the bundles hold, part of each asset's hash: switching between bytecode and source only
    rebuilds them instead of reusing a ``cdk.out`` bundle of the other kind."""
    return "cpython-3.13 unchecked-hash" if interpreter() else "source only"


def compile_folder(folder: str, lambda_root: str) -> None:
    """Compile every ``.py`` under ``folder`` for python3.13, naming files as under ``lambda_root`` in Lambda."""
    python = interpreter()
    if python is None:
        return
    subprocess.run([python, "-I", "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash",
                    "-d", lambda_root, folder], check=True, stdout=subprocess.DEVNULL)


@jsii.implements(ILocalBundling)
class CompiledCopy:
    """CDK local bundling: ``source`` as it is (no ``__pycache__``), plus its bytecode."""

    def __init__(self, source: Path, lambda_root: str, exclude: list[str]):
        self.source, self.lambda_root, self.exclude = source, lambda_root, exclude

    def try_bundle(self, output_dir: str, *, image: DockerImage, **_options) -> bool:
        shutil.copytree(self.source, output_dir, dirs_exist_ok=True, ignore=shutil.ignore_patterns(*self.exclude))
        compile_folder(output_dir, self.lambda_root)
        return True


def compiled_code(source: Path, lambda_root: str, exclude: Sequence[str] = ()) -> lambda_.Code:
    """The folder's asset, with bytecode. Hashed by its source (``__pycache__`` and ``exclude``
    left out) and what the bundle holds, so a synth whose ``cdk.out`` already has the bundle reuses it."""
    excludes = [*ASSET_EXCLUDES, *exclude]
    return lambda_.Code.from_asset(
        str(source), exclude=excludes, asset_hash_type=AssetHashType.SOURCE,
        bundling=BundlingOptions(image=bundling_image(), local=CompiledCopy(source, lambda_root, excludes),
                                 environment={BYTECODE: mode()}))
