"""Where each function's code and layers are in a synthesized cloud assembly (``cdk.out``).

Read from the template alone: a function's ``Code`` and a layer's ``Content`` name the asset's
S3 key, ``<hash>.zip``, and the assembly holds that asset as the folder ``asset.<hash>``.
Used by ``make bench`` and the tests, which run the functions from these folders as Lambda
would (``/var/task`` and each layer's ``python/`` under ``/opt``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

STACK = "Alleycat"  # stacks.app.STACK_NAME (stacks itself imports the CDK)


def logical_id(function: str) -> str:
    """A function's logical id, as ``stacks.functions.logical_id`` makes it: ``get_race`` -> ``GetRaceFunction``."""
    return "".join(part.capitalize() for part in function.split("_")) + "Function"


@dataclass(frozen=True)
class FunctionFolders:
    code: Path           # /var/task
    layers: list[Path]   # each extracted under /opt; their python/ folders go on sys.path

    @property
    def import_path(self) -> list[Path]:
        """Lambda's order: the function's code, then each layer's ``python/``."""
        return [self.code, *(layer / "python" for layer in self.layers)]


def asset_folder(outdir: Path, code: dict) -> Path:
    return Path(outdir) / f"asset.{code['S3Key'].removesuffix('.zip')}"


def function_folders(outdir: Path, template: dict, logical_id: str) -> FunctionFolders:
    """The folders of the function ``logical_id`` (e.g. ``GetRaceFunction``) in the assembly at ``outdir``."""
    resources = template["Resources"]
    properties = resources[logical_id]["Properties"]
    layers = [asset_folder(outdir, resources[layer["Ref"]]["Properties"]["Content"]) for layer in properties["Layers"]]
    return FunctionFolders(asset_folder(outdir, properties["Code"]), layers)


def read_template(outdir: Path, stack: str) -> dict:
    return json.loads((Path(outdir) / f"{stack}.template.json").read_text())
