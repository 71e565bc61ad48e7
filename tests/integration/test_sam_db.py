"""`make sam-db` (local/sam_db.py): the DynamoDB `sam local invoke --env-vars events/env.json` expects,
and the order it prints, in which every function answers 2xx (docs/local.md)."""

import json

from alleycat import settings
from alleycat.storage import dynamo
from alleycat.storage import entities as e
from local import handlers, sam_db, server
from local.dynamodb_local import free_port
from stacks.settings import (
    AUTHORIZER,
    FINISHER,
    INGEST_CONSUMER,
    NOT_ROUTES,
    STREAM_PROCESSOR,
    TICKER,
    TOKEN_GROUPS,
)


def test_it_serves_the_table_and_the_sample_race_the_events_name_and_says_what_to_run(monkeypatch, capsys):
    # Given the table and port events/env.json gives the functions
    table, port = sam_db.settings()
    assert (table, port) == ("alleycat-local", 8000)
    port = free_port()  # another, so that this test never meets a sam-db someone left running
    monkeypatch.setattr(sam_db, "settings", lambda: (table, port))
    seen = {}

    def while_it_runs(stop=None):  # in place of waiting for Ctrl-C
        import boto3

        client = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                              aws_access_key_id="any", aws_secret_access_key="any")
        seen["items"] = client.scan(TableName=table, Select="COUNT")["Count"]
        seen["port taken"] = not sam_db.port_free(port)
        # Each function in the order it prints, with its events/ file and events/env.json's variables
        # (as `sam local invoke` runs them; tests/infrastructure/test_sam_local.py runs them as SAM does)
        monkeypatch.setenv("TABLE_NAME", table)
        monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", f"http://127.0.0.1:{port}")
        settings.reset()
        dynamo.client.cache_clear()
        seen["answers"] = {name: handlers.invoke(name, json.loads((sam_db.ROOT / "events" / f"{name}.json").read_text()))
                           for name in sam_db.ORDER}

    monkeypatch.setattr(server, "wait_for_ctrl_c", while_it_runs)
    # When `make sam-db` runs
    try:
        sam_db.main()
    finally:
        dynamo.client.cache_clear()
    # Then the table held the sample race while it ran, and it said what to run next
    answers = seen.pop("answers")
    assert seen == {"items": len(e.new_race_items(sam_db.SAMPLE_RACE)), "port taken": True}
    # and in that order every function answers 2xx (issue 51: the replay, asked for before the race was
    # settled, answered 409), the others as what they are for
    statuses = {name: answer["statusCode"] for name, answer in answers.items() if name not in NOT_ROUTES}
    assert {name: status for name, status in statuses.items() if not 200 <= status < 300} == {}
    assert json.loads(answers["get_race_replay"]["body"])["racers"][0]["racerId"] == "racer-1"
    assert answers[STREAM_PROCESSOR] == {"batchItemFailures": []}
    assert answers[INGEST_CONSUMER] == {"batchItemFailures": []}
    assert answers[FINISHER]["outcome"] == "finished" and answers[TICKER]["outcome"] == "left"
    assert answers[TOKEN_GROUPS]["response"] == {"claimsAndScopeOverrideDetails": None}
    assert answers[AUTHORIZER]["isAuthenticated"] is False and answers[AUTHORIZER]["policyDocuments"] == []
    said = capsys.readouterr().out
    assert sam_db.RACE_ID in said and "sam local invoke -t cdk.out/Alleycat.template.json" in said
    assert sam_db.COMMANDS in said and said.count("$SAM ") == len(sam_db.ORDER)
    # And once stopped, the port is free again
    assert sam_db.port_free(port)
