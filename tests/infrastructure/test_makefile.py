"""The Makefile as an operator meets it, read with `make -n -B` (every recipe the target would run,
none run): synth and deploy install no Java (only DynamoDB Local needs one), and `make admin` passes
EMAIL, STACK and SITE to tools/make_admin.py."""

from __future__ import annotations

import subprocess

import pytest

from .conftest import ROOT

JAVA = ("default-jre-headless", "apt-get")


def recipes(*arguments: str) -> str:
    done = subprocess.run(["make", "--no-print-directory", "-n", "-B", *arguments], cwd=ROOT,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("target", ["synth", "deploy", "admin"])
def test_synth_deploy_and_admin_install_no_java(target):
    # Given what the target would run, from scratch / Then nothing installs a Java runtime
    assert not [word for word in JAVA if word in recipes(target)], target


@pytest.mark.parametrize("target", ["local", "demo", "sam-db", "test-integration"])
def test_what_runs_dynamodb_local_still_gets_java(target):
    assert "default-jre-headless" in recipes(target)


def test_make_admin_passes_the_email_the_stack_and_the_site():
    # Given the deployed stack / Then the tool gets the email and the stack's name (STACK=, as deploy)
    lines = [line.strip() for line in recipes("admin", "EMAIL=ops@example.org", "STACK=Racing").splitlines()]
    assert '.venv/bin/python tools/make_admin.py "ops@example.org" --stack "Racing"' in lines
    assert 'npx cdk deploy Racing' in recipes("deploy", "STACK=Racing")
    # Given a local stack / Then it gets the site too
    assert ('tools/make_admin.py "ops@example.org" --stack "Alleycat" --site "http://127.0.0.1:3000"'
            in recipes("admin", "EMAIL=ops@example.org", "SITE=http://127.0.0.1:3000"))
