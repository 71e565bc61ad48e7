"""Builds the app's single stack and attaches cdk-nag (used by ``app.py`` and the tests)."""

from __future__ import annotations

from aws_cdk import App, Validations
from cdk_nag import AwsSolutionsChecks

from .alleycat_stack import AlleycatStack

STACK_NAME = "Alleycat"


def is_throwaway(app: App) -> bool:
    """``cdk synth -c throwaway=true``: CLI context arrives as a string."""
    return str(app.node.try_get_context("throwaway")).lower() == "true"


def build(app: App) -> AlleycatStack:
    stack = AlleycatStack(app, STACK_NAME, stack_name=STACK_NAME,
                          description="Alleycat bike-racing backend", throwaway=is_throwaway(app))
    # Every synth runs the AWS Solutions pack; an unacknowledged finding fails the synth.
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return stack
