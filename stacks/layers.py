"""The functions' two layers, both built from this repository by ``cdk synth``, without Docker.

- shared: ``layers/alleycat``'s ``python/`` folder as it is (keys, entities, partitions, stream, http, ...), without
  the packaging that installs it in the venv (``pyproject.toml``, ``*.egg-info``);
- dependencies: the packages pinned in ``layers/dependencies/requirements.txt``, installed for
  Lambda's python3.13 on arm64 by pip on the host (CDK local bundling).

Both are compiled for python3.13 as they will sit in ``/opt/python`` (``stacks/bytecode.py``).

Nothing is resolved from SSM or downloaded at deploy or ``sam local invoke`` time, and the
deployed Powertools is the version the tests run.
"""

from __future__ import annotations

import subprocess
import sys

import jsii
from aws_cdk import AssetHashType, BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from . import LAYER_DIR, ROOT
from .bytecode import BYTECODE, LAYERS_ROOT, PACKAGING_EXCLUDES, bundling_image, compile_folder, compiled_code, mode

DEPENDENCIES_DIR = ROOT / "layers" / "dependencies"
REQUIREMENTS = DEPENDENCIES_DIR / "requirements.txt"
# Lambda's python3.13 on Graviton; wheels only, so nothing is compiled for the wrong machine.
PIP_PLATFORM = ["--platform", "manylinux2014_aarch64", "--implementation", "cp",
                "--python-version", "3.13", "--only-binary=:all:"]


def pip_install_command(requirements: str, target: str) -> list[str]:
    """pip on the host, installing exactly the pinned packages (``--no-deps``) for Lambda; the
    host's pip may run on another Python, so the bytecode is compiled afterwards by a 3.13."""
    return [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-deps", "--no-compile", *PIP_PLATFORM, "--target", target, "-r", requirements]


@jsii.implements(ILocalBundling)
class PipInstall:
    """CDK local bundling: the layer's ``python/`` folder filled by pip on the host, then compiled."""

    def try_bundle(self, output_dir: str, *, image: DockerImage, **_options) -> bool:
        subprocess.run(pip_install_command(str(REQUIREMENTS), f"{output_dir}/python"), check=True)
        compile_folder(output_dir, LAYERS_ROOT)
        return True


def dependencies_code() -> lambda_.Code:
    """Hashed by its source (the requirements file), so a synth whose ``cdk.out`` already
    holds this bundle reuses it instead of running pip again."""
    return lambda_.Code.from_asset(
        str(DEPENDENCIES_DIR),
        asset_hash_type=AssetHashType.SOURCE,
        bundling=BundlingOptions(image=bundling_image(), local=PipInstall(), environment={BYTECODE: mode()}),
    )


def layers(scope: Construct, runtime: lambda_.Runtime,
           architecture: lambda_.Architecture) -> list[lambda_.ILayerVersion]:
    """The shared-code layer and the dependencies layer, in that order."""
    common = dict(compatible_runtimes=[runtime], compatible_architectures=[architecture])
    return [
        lambda_.LayerVersion(
            scope, "SharedLayer",
            code=compiled_code(LAYER_DIR, LAYERS_ROOT, PACKAGING_EXCLUDES),
            description="Alleycat shared code: keys, entities, partitions, stream, http",
            **common),
        lambda_.LayerVersion(
            scope, "DependenciesLayer",
            code=dependencies_code(),
            description="Alleycat runtime dependencies, pinned: " + ", ".join(pinned_packages()),
            **common),
    ]


def pinned_packages() -> list[str]:
    """``name==version`` lines of the requirements file, comments left out."""
    lines = (line.split("#", 1)[0].strip() for line in REQUIREMENTS.read_text().splitlines())
    return [line for line in lines if line]
