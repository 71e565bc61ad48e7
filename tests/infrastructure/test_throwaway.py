"""`-c throwaway=true`: a stack that `cdk destroy` removes without leftovers. The whole app is
synthesized once more in process with that context (a few seconds), as `cdk synth -c throwaway=true`
builds it: cdk-nag runs on it (an unacknowledged finding raises), and so does cfn-lint.

Leftovers a deleted stack can leave: resources CloudFormation keeps (DeletionPolicy Retain or
Snapshot), a bucket it cannot delete because objects are in it, a resource protected against
deletion, and log groups Lambda makes by itself when a function logs with no log group of the
stack (CDK's bucket-emptying function runs while the stack is being deleted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import of_type, synthesize

KEPT = ("Retain", "RetainExceptOnCreate", "Snapshot")


@pytest.fixture(scope="module")
def throwaway(tmp_path_factory):
    return synthesize(tmp_path_factory.mktemp("throwaway"), throwaway="true")


@pytest.fixture(scope="module")
def resources(throwaway) -> dict:
    return throwaway.template["Resources"]


def test_no_resource_is_kept_when_the_stack_is_deleted(resources):
    # Given every resource of the throwaway stack / Then none is retained or snapshotted, on deletion or replacement
    kept = {logical: (resource.get("DeletionPolicy"), resource.get("UpdateReplacePolicy"))
            for logical, resource in resources.items()
            if resource.get("DeletionPolicy") in KEPT or resource.get("UpdateReplacePolicy") in KEPT}
    assert not kept, kept


def test_no_resource_is_protected_against_deletion(resources):
    # Given the resources with a deletion protection setting (the table, the user pool)
    protected = {logical: value for logical, resource in resources.items()
                 for name, value in resource.get("Properties", {}).items()
                 if name.startswith("DeletionProtection") and value not in (False, "INACTIVE")}
    # Then it is off
    assert of_type(resources, "AWS::DynamoDB::Table") and not protected, protected


def test_every_bucket_is_emptied_before_it_is_deleted(resources):
    # Given the buckets / Then each has one of CDK's auto-delete custom resources, which empties it
    buckets = of_type(resources, "AWS::S3::Bucket")
    emptied = [resource["Properties"]["BucketName"] for resource in of_type(resources, "Custom::S3AutoDeleteObjects").values()]
    assert len(buckets) == 2
    assert sorted(json.dumps(name) for name in emptied) == sorted(json.dumps({"Ref": bucket}) for bucket in buckets)
    # And the log bucket is emptied after the distribution and the site bucket, which write to it, are gone
    [logs] = [logical for logical in buckets if logical.startswith("SiteAccessLogs")]
    [emptying] = [resource for resource in of_type(resources, "Custom::S3AutoDeleteObjects").values()
                  if resource["Properties"]["BucketName"] == {"Ref": logs}]
    [distribution] = of_type(resources, "AWS::CloudFront::Distribution")
    [site] = [logical for logical in buckets if logical != logs]
    assert {distribution, site} <= set(emptying["DependsOn"])


def test_every_function_logs_to_a_log_group_of_the_stack(resources):
    # Given every Lambda function, the stack's and CDK's (deployment, bucket emptying)
    functions = of_type(resources, "AWS::Lambda::Function")
    assert any(logical.startswith("CustomS3AutoDeleteObjects") for logical in functions)
    # Then each logs to a log group of the stack (deleted with it, after the function), never to one
    # Lambda would make by itself and leave behind
    groups = set(of_type(resources, "AWS::Logs::LogGroup"))
    unlogged = {logical for logical, function in functions.items()
                if function["Properties"].get("LoggingConfig", {}).get("LogGroup", {}).get("Ref") not in groups}
    assert not unlogged, unlogged


def test_the_default_stack_keeps_its_data(template_json):
    # Given the default (not throwaway) template / Then the table, the user pool and the buckets are kept
    resources = template_json["Resources"]
    for type_ in ("AWS::DynamoDB::Table", "AWS::Cognito::UserPool", "AWS::S3::Bucket"):
        assert of_type(resources, type_)
        assert all(resource["DeletionPolicy"] == "Retain" for resource in of_type(resources, type_).values()), type_
    # And nothing empties a bucket
    assert not of_type(resources, "Custom::S3AutoDeleteObjects")


def test_cfn_lint_finds_no_error_in_the_throwaway_template(throwaway):
    from cfnlint.api import ManualArgs, lint_file
    matches = lint_file(Path(throwaway.template_full_path), ManualArgs(append_rules=["cfn_lint_serverless.rules"]))
    errors = [str(match) for match in matches if match.rule.id.startswith("E")]
    assert not errors, "\n".join(errors)
