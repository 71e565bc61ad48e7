"""What a deploy meets in AWS, read off the synthesized template: the alarm topic lets CloudWatch
publish (its policy replaces SNS's default one), nothing the stack keeps has a name a later create
would need, CloudFront's account-wide names carry the Region, Origin Shield's Region is one AWS
offers, and the viewers' API key is replaced before AppSync could have deleted it."""

from __future__ import annotations

import json
import time
from fnmatch import fnmatchcase

import pytest
from aws_cdk import App, Stack

from stacks.board_events import key_name
from stacks.site import origin_shield

from .conftest import of_type

ACCOUNT, OTHER_ACCOUNT, REGION, PARTITION = "111122223333", "444455556666", "eu-west-1", "aws"
DAY = 86_400
KEPT = ("Retain", "RetainExceptOnCreate", "Snapshot")


# --- the alarm topic's policy, evaluated as IAM would -----------------------------------------------


def resolve(value, refs: dict):
    """The template's value with ``Ref`` and ``Fn::Join`` worked out for one account and Region."""
    if isinstance(value, dict) and "Ref" in value:
        return refs[value["Ref"]]
    if isinstance(value, dict) and "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return separator.join(resolve(part, refs) for part in parts)
    if isinstance(value, dict):
        return {key: resolve(item, refs) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, refs) for item in value]
    return value


def as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def condition_holds(operator: str, key: str, expected, context: dict) -> bool:
    if key not in context:  # no ...IfExists operator here: a missing key never matches
        return False
    actual = context[key]
    tests = {"StringEquals": lambda want: actual == want, "ArnLike": lambda want: fnmatchcase(actual, want),
             "Bool": lambda want: str(actual).lower() == str(want).lower()}
    return any(tests[operator](want) for want in as_list(expected))


def applies(statement: dict, principal: dict, action: str, resource: str, context: dict) -> bool:
    wanted = statement["Principal"]
    if wanted != "*" and not any(principal.get(kind) in as_list(names) for kind, names in wanted.items()):
        return False
    if not any(fnmatchcase(action.lower(), pattern.lower()) for pattern in as_list(statement["Action"])):
        return False
    if resource not in as_list(statement["Resource"]):
        return False
    return all(condition_holds(operator, key, expected, context)
               for operator, keys in statement.get("Condition", {}).items() for key, expected in keys.items())


def decision(statements: list[dict], principal: dict, action: str, resource: str, context: dict) -> str:
    """IAM's order: an explicit deny wins, then an allow, else the implicit deny."""
    matching = [s["Effect"] for s in statements if applies(s, principal, action, resource, context)]
    return "Deny" if "Deny" in matching else "Allow" if "Allow" in matching else "ImplicitDeny"


@pytest.fixture(scope="module")
def topic_policy(resources):
    [topic] = of_type(resources, "AWS::SNS::Topic")
    topic_arn = f"arn:{PARTITION}:sns:{REGION}:{ACCOUNT}:alleycat-alarms"
    refs = {"AWS::AccountId": ACCOUNT, "AWS::Region": REGION, "AWS::Partition": PARTITION, topic: topic_arn}
    [policy] = [p["Properties"] for p in of_type(resources, "AWS::SNS::TopicPolicy").values()
                if p["Properties"]["Topics"] == [{"Ref": topic}]]
    return resolve(policy["PolicyDocument"]["Statement"], refs), topic_arn


def alarm_publishes(account: str, *, tls: bool = True, service: str = "cloudwatch.amazonaws.com") -> tuple:
    """A CloudWatch alarm's notification as SNS authorizes it: CloudWatch's service principal, with the
    alarm's account and ARN as the source (AWS's topic policy for alarms, and its confused-deputy keys)."""
    alarm = f"arn:{PARTITION}:cloudwatch:{REGION}:{account}:alarm:Alleycat-PostTelemetryErrors-1A2B3C"
    return {"Service": service}, "sns:Publish", {"aws:SourceAccount": account, "aws:SourceArn": alarm,
                                                  "aws:SecureTransport": tls}


def test_the_alarm_topic_lets_this_accounts_cloudwatch_alarms_publish(topic_policy):
    # Given the topic's own policy (enforce_ssl's, which replaces SNS's default one)
    statements, topic_arn = topic_policy
    # When one of this account's alarms notifies it / Then SNS lets CloudWatch publish
    principal, action, context = alarm_publishes(ACCOUNT)
    assert decision(statements, principal, action, topic_arn, context) == "Allow"


def test_the_alarm_topic_refuses_other_accounts_alarms_other_services_and_plain_http(topic_policy):
    statements, topic_arn = topic_policy
    # An alarm of another account (CloudWatch as a confused deputy) is not allowed
    principal, action, context = alarm_publishes(OTHER_ACCOUNT)
    assert decision(statements, principal, action, topic_arn, context) != "Allow"
    # Nor is another service, nor a publish without TLS (explicitly denied)
    principal, action, context = alarm_publishes(ACCOUNT, service="events.amazonaws.com")
    assert decision(statements, principal, action, topic_arn, context) != "Allow"
    principal, action, context = alarm_publishes(ACCOUNT, tls=False)
    assert decision(statements, principal, action, topic_arn, context) == "Deny"


# --- what the stack keeps, and the names a create needs ---------------------------------------------


def names(properties: dict) -> dict:
    """A resource's own name properties (``Name``, ``TableName``, ``LogGroupName``, ...)."""
    return {key: value for key, value in properties.items() if key == "Name" or key.endswith("Name")}


def made_with_the_stack(value, resources: dict) -> bool:
    """Whether a name is built from a resource of the stack (a new create makes a new one), rather than
    from literals and the account and Region alone (the same name at every create)."""
    if isinstance(value, dict):
        if "Ref" in value:
            return value["Ref"] in resources
        if "Fn::GetAtt" in value:
            return value["Fn::GetAtt"][0] in resources
        return any(made_with_the_stack(item, resources) for item in value.values())
    if isinstance(value, list):
        return any(made_with_the_stack(item, resources) for item in value)
    return False


def test_nothing_the_stack_keeps_has_a_name_a_later_create_would_need(resources):
    # Given every resource a deletion (or a replacement) leaves behind
    kept = {logical: resource for logical, resource in resources.items()
            if resource.get("DeletionPolicy") in KEPT or resource.get("UpdateReplacePolicy") in KEPT}
    assert of_type(kept, "AWS::DynamoDB::Table") and of_type(kept, "AWS::Logs::LogGroup")
    # Then each is named by CloudFormation, or after a resource made with it (the live boards' log
    # group, after its API's id), never by a name fixed in the template
    fixed = {logical: name for logical, resource in kept.items()
             for name in names(resource.get("Properties", {})).values() if not made_with_the_stack(name, resources)}
    assert not fixed, fixed
    assert any(names(resource["Properties"]) for resource in kept.values())  # the check saw a named one


def test_the_schedule_group_is_never_kept(resources):
    # Given the finishes' schedule group, whose name CDK fixes / Then it goes with the stack, always
    [group] = of_type(resources, "AWS::Scheduler::ScheduleGroup").values()
    assert isinstance(group["Properties"]["Name"], str)
    assert group.get("DeletionPolicy", "Delete") == "Delete" and group.get("UpdateReplacePolicy", "Delete") == "Delete"


def test_logs_and_failure_queues_are_kept_except_by_a_failed_first_deploy(resources):
    # Given the log groups and the failure queues / Then a deletion or a replacement keeps them, but the
    # rollback of the deploy that created them deletes them (CloudFormation's RetainExceptOnCreate)
    for type_ in ("AWS::Logs::LogGroup", "AWS::SQS::Queue"):
        kept = of_type(resources, type_)
        assert kept
        assert {(r["DeletionPolicy"], r["UpdateReplacePolicy"]) for r in kept.values()} == {("RetainExceptOnCreate", "Retain")}


# --- CloudFront's account-wide names, Origin Shield -----------------------------------------------


# AWS's limits on the names (CloudFront API reference: CachePolicyConfig, OriginRequestPolicyConfig,
# ResponseHeadersPolicyConfig, OriginAccessControlConfig), and the longest Region code there is.
NAME_LIMITS = {"AWS::CloudFront::CachePolicy": 128, "AWS::CloudFront::OriginRequestPolicy": 128,
               "AWS::CloudFront::ResponseHeadersPolicy": 128, "AWS::CloudFront::OriginAccessControl": 64}
LONGEST_REGION = len("ap-southeast-5")


def test_cloudfronts_named_resources_are_named_per_stack_and_region(resources):
    # Given CloudFront's named resources (one namespace per account, whatever the Region)
    named = {logical: (resource["Type"], next(iter(resource["Properties"].values()))["Name"])
             for logical, resource in resources.items() if resource["Type"] in NAME_LIMITS}
    assert {type_ for type_, _ in named.values()} == set(NAME_LIMITS)
    for logical, (type_, name) in named.items():
        # Then each ends in the deploy's Region and starts with the stack's name
        separator, parts = name["Fn::Join"]
        assert separator == "" and parts[-1] == {"Ref": "AWS::Region"} and len(parts) == 2, logical
        assert parts[0].startswith("Alleycat-") and parts[0].endswith("-")
        # And fits AWS's limit in any Region
        assert len(parts[0]) + LONGEST_REGION <= NAME_LIMITS[type_], logical
    # And no two share a name
    assert len({json.dumps(name) for _, name in named.values()}) == len(named)


def test_origin_shield_runs_where_aws_says_for_the_deploys_region(template_json, resources):
    # Given the API's origin
    [distribution] = of_type(resources, "AWS::CloudFront::Distribution").values()
    [shield] = [o["OriginShield"] for o in distribution["Properties"]["DistributionConfig"]["Origins"] if "OriginShield" in o]
    mapping, region_key, field = shield["OriginShieldRegion"]["Fn::FindInMap"]
    assert shield["Enabled"] is True and region_key == {"Ref": "AWS::Region"}
    regions = {region: entry[field] for region, entry in template_json["Mappings"][mapping].items()}
    # Then a Region that has Origin Shield uses its own, and the others the one AWS's guide names
    # ("Choosing the AWS Region for Origin Shield", CloudFront Developer Guide)
    assert regions["eu-west-1"] == "eu-west-1" and regions["us-east-1"] == "us-east-1" and regions["sa-east-1"] == "sa-east-1"
    assert (regions["us-west-1"], regions["ca-central-1"], regions["eu-north-1"], regions["eu-west-3"]) == (
        "us-west-2", "us-east-1", "eu-west-2", "eu-west-2")
    assert (regions["af-south-1"], regions["ap-east-1"], regions["me-south-1"], regions["eu-south-1"]) == (
        "eu-west-1", "ap-southeast-1", "ap-south-1", "eu-central-1")
    # And a Region AWS gives no choice for is absent (its deploy stops at the lookup, before any resource)
    assert "eu-central-2" not in regions and len(regions) == 20


def test_origin_shields_region_is_a_setting(tmp_path):
    def shield(value):
        return origin_shield(Stack(App(outdir=str(tmp_path), context={"originShieldRegion": value}), "Shield"))

    assert shield("us-east-2") == {"origin_shield_enabled": True, "origin_shield_region": "us-east-2"}
    assert shield("off") == {"origin_shield_enabled": False}
    with pytest.raises(ValueError, match="Origin Shield in"):
        shield("eu-central-2")  # a Region without Origin Shield


# --- the viewers' API key ---------------------------------------------------------------------------


def test_the_viewers_key_is_replaced_before_appsync_could_have_deleted_it(resources):
    # Given the key's lifetime, read off the template (its expiry from the start of the synth's day)
    [(logical, key)] = of_type(resources, "AWS::AppSync::ApiKey").items()
    lifetime_days = (key["Properties"]["Expires"] - time.time() // DAY * DAY) // DAY
    assert logical.startswith(f"BoardsApi{key_name()}ApiKey")
    # When a stack last deployed on any day of three years is deployed again the day AppSync deletes its
    # key (60 days after it expired; a deleted key cannot be updated: AppSync's ApiKey reference)
    for last in range(3 * 365):
        deleted = last + lifetime_days + 60
        # Then that deploy names a new key (a new logical id: created, not updated)
        assert key_name(last * DAY) != key_name(deleted * DAY), last
    # And deploys in between extend the same key: a new one at most about once a year
    assert len({key_name(day * DAY) for day in range(365)}) <= 2
