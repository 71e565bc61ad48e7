#!/usr/bin/env python3
"""CDK entry point: ``npx cdk synth`` (add ``-c throwaway=true`` for a disposable stack)."""

import aws_cdk as cdk

from stacks.app import build

app = cdk.App()
build(app)
app.synth()
