"""The Alleycat CDK app: one stack, built from the routes and table schema declared in the layer.

The layer's package (``layers/alleycat``, installed in the venv by ``pip install -e``) is imported
from here, so ``alleycat.edge.routes`` and ``alleycat.storage.schema`` stay the single source of truth for the
API and the table.

This package, ``stacks.settings`` and ``stacks.headers`` import no ``aws_cdk`` (the helpers below
load it when called): the local stack reads those two modules (the bench, ``logical_id``), and the CDK's jsii
runtime takes seconds to start.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from constructs import IConstruct

ROOT = Path(__file__).resolve().parents[1]
LAYER_DIR = ROOT / "layers" / "alleycat"
FUNCTIONS_DIR = ROOT / "functions"


def pascal(name: str) -> str:
    """``get_race_leaderboard`` -> ``GetRaceLeaderboard`` (construct ids and logical ids)."""
    return "".join(part.capitalize() for part in name.split("_"))


def logical_id(function: str) -> str:
    """The Lambda function's CloudFormation logical id, e.g. ``GetRaceLeaderboardFunction``."""
    return f"{pascal(function)}Function"


def acknowledge(construct: IConstruct, rule: str, reason: str) -> None:
    """Acknowledge one cdk-nag finding on ``construct`` (and its children), with a reason.

    cdk-nag 3 wants each finding acknowledged by its exact id, e.g. ``AwsSolutions-IAM5[Resource::*]``.
    """
    from aws_cdk import Acknowledgment, Validations

    Validations.of(construct).acknowledge(Acknowledgment(id=rule, reason=reason))


LINT_REASONS = "cfn-lint-reasons"  # Metadata key: rule -> why it is acknowledged


def acknowledge_lint(construct: IConstruct, rule: str, reason: str) -> None:
    """Acknowledge one cfn-lint (or cfn-lint-serverless) finding on ``construct``'s resource:
    cfn-lint's own ``ignore_checks`` Metadata, and the reason beside it for reviewers."""
    resource = construct.node.default_child
    metadata = resource.get_metadata("cfn-lint") or {"config": {"ignore_checks": []}}
    metadata["config"]["ignore_checks"].append(rule)
    resource.add_metadata("cfn-lint", metadata)
    resource.add_metadata(LINT_REASONS, {**(resource.get_metadata(LINT_REASONS) or {}), rule: reason})
