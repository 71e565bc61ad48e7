#!/usr/bin/env python3
"""CDK entry point: ``npx cdk synth`` (add ``-c throwaway=true`` for a disposable stack)."""

import sys

import aws_cdk as cdk

from stacks.app import build
from stacks.python313 import NotFound

app = cdk.App()
try:
    build(app)
except NotFound as missing:  # no CPython 3.13 to compile the assets with: say how to get one
    sys.exit(f"cdk synth stopped: {missing}")
app.synth()
