"""Races finish by themselves: the finisher, its schedules' role and who may make schedules, in the template."""

from alleycat.edge.routes import FINISH_ACTIONS
from alleycat.flows import ending, ticking
from alleycat.rules import finishing
from alleycat.settings import FINISH_DEAD_LETTER_ARN, FINISH_SCHEDULE_GROUP, FINISH_SCHEDULE_ROLE_ARN, FINISHER_ARN
from stacks.functions import logical_id
from stacks.settings import FINISHER, STREAM_PROCESSOR, TICKER

from .conftest import of_type
from .test_stack import as_list, role_of, statements

SCHEDULER = "scheduler.amazonaws.com"


def schedule_role(resources, invokes: str = "the finisher") -> tuple[str, dict]:
    """The role schedules invoke ``invokes`` with (the finisher; the ticker: test_race_tickers.py)."""
    [(name, role)] = [(name, role) for name, role in of_type(resources, "AWS::IAM::Role").items()
                      if role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": SCHEDULER}
                      and role["Properties"]["Description"].endswith(f"invoke {invokes}")]
    return name, role["Properties"]


def test_the_schedules_role_can_only_invoke_the_finisher_or_give_up_into_its_queue(resources):
    name, role = schedule_role(resources)
    # Then it has no managed policy, and its statements name one function and one queue
    assert "ManagedPolicyArns" not in role and "Policies" not in role
    granted = {(action, str(statement["Resource"])) for statement in statements(resources, name)
               for action in as_list(statement["Action"])}
    # (the queue the finisher's failed asynchronous invocations go to)
    [config] = [config for config in of_type(resources, "AWS::Lambda::EventInvokeConfig").values()
                if config["Properties"]["FunctionName"] == {"Ref": logical_id(FINISHER)}]
    failures = config["Properties"]["DestinationConfig"]["OnFailure"]["Destination"]["Fn::GetAtt"][0]
    assert granted == {("lambda:InvokeFunction", str({"Fn::GetAtt": [logical_id(FINISHER), "Arn"]})),
                       ("sqs:SendMessage", str({"Fn::GetAtt": [failures, "Arn"]}))}
    # and only the scheduler, for this account's schedule group, may take it on
    [trust] = role["AssumeRolePolicyDocument"]["Statement"]
    [group] = of_type(resources, "AWS::Scheduler::ScheduleGroup")
    assert trust["Condition"] == {"StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}},
                                  "ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [group, "Arn"]}}}


def test_only_the_finisher_and_the_ticker_make_schedules_each_its_own_and_passes_its_role(resources):
    own = {role_of(resources, FINISHER): (schedule_role(resources)[0], ending.schedule_name("")),
           role_of(resources, TICKER): (schedule_role(resources, "the ticker")[0], ticking.schedule_name(""))}
    makers, passers = set(), set()
    for name in of_type(resources, "AWS::IAM::Role"):
        for statement in statements(resources, name):
            actions = as_list(statement["Action"])
            if any(a.startswith("scheduler:") for a in actions):
                makers.add(name)
                assert actions == ["scheduler:CreateSchedule"]
                assert ":schedule/" in str(statement["Resource"])
                assert str(statement["Resource"]).endswith(f"/{own[name][1]}*']]}}")
            if "iam:PassRole" in actions:
                passers.add(name)
                assert statement["Resource"] == {"Fn::GetAtt": [own[name][0], "Arn"]}
                assert statement["Condition"] == {"StringEquals": {"iam:PassedToService": SCHEDULER}}
    assert makers == passers == set(own)


def test_the_stream_processor_may_only_start_the_finisher_and_the_ticker(resources):
    invokes = [statement for statement in statements(resources, role_of(resources, STREAM_PROCESSOR))
               if any(action.startswith("lambda:") for action in as_list(statement["Action"]))]
    assert invokes == [{"Action": "lambda:InvokeFunction", "Effect": "Allow",
                        "Resource": [{"Fn::GetAtt": [logical_id(name), "Arn"]} for name in (FINISHER, TICKER)]}]
    environment = resources[logical_id(STREAM_PROCESSOR)]["Properties"]["Environment"]["Variables"]
    assert environment[FINISHER_ARN] == {"Fn::GetAtt": [logical_id(FINISHER), "Arn"]}


def test_the_finisher_has_the_finish_routes_table_actions_and_waits_long_enough(resources):
    granted = {action for statement in statements(resources, role_of(resources, FINISHER))
               for action in as_list(statement["Action"]) if action.startswith("dynamodb:")}
    assert granted == set(FINISH_ACTIONS)
    function = resources[logical_id(FINISHER)]["Properties"]
    assert function["Timeout"] > finishing.LONGEST_WAIT
    # It knows where to make its schedules, as whom, and where their failures go
    environment = function["Environment"]["Variables"]
    assert {FINISH_SCHEDULE_GROUP, FINISH_SCHEDULE_ROLE_ARN, FINISH_DEAD_LETTER_ARN} <= set(environment)
