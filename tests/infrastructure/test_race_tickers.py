"""Races' tickers (alleycat.flows.ticking): the function, who may start it, its schedules' role and where its
failures go, in the template."""

from alleycat.rules import ticking
from alleycat.settings import FINISH_SCHEDULE_GROUP, TICKER_ARN, TICKER_DEAD_LETTER_ARN, TICKER_SCHEDULE_ROLE_ARN
from stacks.functions import logical_id
from stacks.settings import STREAM_PROCESSOR, TICKER, TICKER_ACTIONS, memory_mb

from .conftest import of_type
from .test_race_finishes import SCHEDULER, schedule_role
from .test_stack import as_list, role_of, statements


def invoke_config(resources) -> dict:
    [config] = [c["Properties"] for c in of_type(resources, "AWS::Lambda::EventInvokeConfig").values()
                if c["Properties"]["FunctionName"] == {"Ref": logical_id(TICKER)}]
    return config


def failure_queue(resources) -> dict:
    return invoke_config(resources)["DestinationConfig"]["OnFailure"]["Destination"]


def test_the_ticker_reads_the_race_claims_its_seconds_and_queries_its_board_and_nothing_else(resources):
    granted = {action for statement in statements(resources, role_of(resources, TICKER))
               for action in as_list(statement["Action"]) if action.startswith("dynamodb:")}
    assert granted == set(TICKER_ACTIONS) == {"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:Query"}
    function = resources[logical_id(TICKER)]["Properties"]
    # One invocation ticks RUN_SECONDS, inside its timeout, inside Lambda's 15 minutes
    assert ticking.RUN_SECONDS < function["Timeout"] <= 900 and function["MemorySize"] == memory_mb(TICKER)


def test_only_the_stream_processor_the_ticker_itself_and_its_schedules_may_start_it(resources):
    ticker = {"Fn::GetAtt": [logical_id(TICKER), "Arn"]}
    invokers = {policy["Properties"]["Roles"][0]["Ref"] for policy in of_type(resources, "AWS::IAM::Policy").values()
                for statement in policy["Properties"]["PolicyDocument"]["Statement"]
                if "lambda:InvokeFunction" in as_list(statement["Action"]) and ticker in as_list(statement["Resource"])}
    tick_role, _ = schedule_role(resources, "the ticker")
    assert invokers == {role_of(resources, STREAM_PROCESSOR), role_of(resources, TICKER), tick_role}
    # The stream processor is told which function; the ticker hands over to its own ARN (its context's)
    stream = resources[logical_id(STREAM_PROCESSOR)]["Properties"]["Environment"]["Variables"]
    assert stream[TICKER_ARN] == ticker
    # Its own grant is a policy apart from its role's default one, which the function waits for (else a cycle)
    [own] = [name for name, policy in of_type(resources, "AWS::IAM::Policy").items()
             if policy["Properties"]["Roles"] == [{"Ref": role_of(resources, TICKER)}]
             and policy["Properties"]["PolicyDocument"]["Statement"] == [
                 {"Action": "lambda:InvokeFunction", "Effect": "Allow", "Resource": ticker}]]
    assert own not in as_list(resources[logical_id(TICKER)].get("DependsOn", []))


def test_its_schedules_role_only_invokes_the_ticker_or_gives_up_into_its_queue(resources):
    name, role = schedule_role(resources, "the ticker")
    assert "ManagedPolicyArns" not in role and "Policies" not in role
    granted = {(action, str(statement["Resource"])) for statement in statements(resources, name)
               for action in as_list(statement["Action"])}
    assert granted == {("lambda:InvokeFunction", str({"Fn::GetAtt": [logical_id(TICKER), "Arn"]})),
                       ("sqs:SendMessage", str(failure_queue(resources)))}
    [trust] = role["AssumeRolePolicyDocument"]["Statement"]
    [group] = of_type(resources, "AWS::Scheduler::ScheduleGroup")
    assert trust["Principal"] == {"Service": SCHEDULER}
    assert trust["Condition"] == {"StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}},
                                  "ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [group, "Arn"]}}}
    # And the ticker knows the group, the role and where its schedules' failures go
    environment = resources[logical_id(TICKER)]["Properties"]["Environment"]["Variables"]
    assert environment[FINISH_SCHEDULE_GROUP] == resources[group]["Properties"]["Name"]
    assert environment[TICKER_SCHEDULE_ROLE_ARN] == {"Fn::GetAtt": [name, "Arn"]}
    assert environment[TICKER_DEAD_LETTER_ARN] == failure_queue(resources)


def test_a_failed_ticker_is_retried_then_kept_in_an_alarmed_queue(resources):
    # A retry resumes at the race's current second (missed ticks skipped); one five minutes old is not worth it
    config = invoke_config(resources)
    assert (config["MaximumRetryAttempts"], config["MaximumEventAgeInSeconds"]) == (2, 300)
    queue = failure_queue(resources)["Fn::GetAtt"][0]
    assert resources[queue]["Type"] == "AWS::SQS::Queue"
    assert any({"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}} in alarm["Properties"].get("Dimensions", [])
               for alarm in of_type(resources, "AWS::CloudWatch::Alarm").values())
