"""`make sam-db` (local/sam_db.py): the DynamoDB `sam local invoke --env-vars events/env.json` expects."""

from alleycat.storage import entities as e
from local import sam_db, server
from local.dynamodb_local import free_port


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

    monkeypatch.setattr(server, "wait_for_ctrl_c", while_it_runs)
    # When `make sam-db` runs
    sam_db.main()
    # Then the table held the sample race while it ran, and it said what to run next
    assert seen == {"items": len(e.new_race_items(sam_db.SAMPLE_RACE)), "port taken": True}
    said = capsys.readouterr().out
    assert sam_db.RACE_ID in said and "sam local invoke -t cdk.out/Alleycat.template.json" in said
    assert sam_db.COMMANDS in said and said.count("$SAM ") == len(sam_db.ORDER)
    # And once stopped, the port is free again
    assert sam_db.port_free(port)
