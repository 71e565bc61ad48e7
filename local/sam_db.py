"""`make sam-db`: the DynamoDB that `sam local invoke --env-vars events/env.json` expects.

DynamoDB Local on the port ``events/env.json`` names, its table created from the definition the
stack deploys, and the sample race the events name (``create_race`` picks a new id, so it
cannot make that one). Then it says what to run next and waits for Ctrl-C.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

from alleycat.edge.routes import ROUTES, SAMPLE_IDS
from alleycat.storage import entities as e
from stacks import logical_id
from stacks.settings import (
    AUTHORIZER,
    FINISHER,
    HISTORY_WRITER,
    INGEST_CONSUMER,
    STREAM_PROCESSOR,
    TICKER,
    TOKEN_GROUPS,
)

from .dynamodb_local import EmbeddedDynamoDB, EngineUnavailable

ROOT = Path(__file__).resolve().parent.parent
ENV = ROOT / "events" / "env.json"
RACE_ID = SAMPLE_IDS["raceId"]  # the race the sample events name (the routes' samples)
SAMPLE_RACE = e.Race(RACE_ID, SAMPLE_IDS["classId"], "Hill climb", "2026-11-22T10:00:00Z", 300)


# The reads of what the stream processor writes: the race's board (its scores), its replay (the settlement's:
# 409 until the race is settled).
AFTER_THE_STREAM = ("get_race_leaderboard", "get_race_replay")


def run_order() -> list[str]:
    """The functions in the order their sample events run against this table, each finding what the
    ones before it wrote: the routes' samples in the route table's order, except that the finisher comes right
    before an admin's finish (the sample race is long past its end: the finisher finishes it, the route then
    finds it finished), the stream processor right after that finish, with the records the table's stream
    holds by then (the telemetry's chunk and the race's finish, events/make_events.py: it scores the ride and
    settles the race), the ticker after it, and then the reads of what the stream wrote
    (``AFTER_THE_STREAM``); the telemetry log's consumer right after the telemetry route (racer-1's seconds
    again, over MQTT: the first value wins) and the history writer after it (a second block's record: the sample
    race has no slices, so no tag names a racer and it writes nothing); the token trigger and the MQTT authorizer last (they read no table).
    In that order every function answers 2xx (tests/integration/test_sam_db.py runs it)."""
    order = [route.function for route in ROUTES if route.function not in AFTER_THE_STREAM]
    finish = order.index("finish_race")
    order[finish:finish + 1] = [FINISHER, "finish_race", STREAM_PROCESSOR, TICKER, *AFTER_THE_STREAM]
    telemetry = order.index("post_telemetry")
    order[telemetry + 1:telemetry + 1] = [INGEST_CONSUMER, HISTORY_WRITER]
    return [*order, TOKEN_GROUPS, AUTHORIZER]


ORDER = run_order()


def settings() -> tuple[str, int]:
    """The table name and the DynamoDB Local port the functions are given by events/env.json."""
    parameters = json.loads(ENV.read_text())["Parameters"]
    return parameters["TABLE_NAME"], urlsplit(parameters["AWS_ENDPOINT_URL_DYNAMODB"]).port


def port_free(port: int) -> bool:
    """No server listens on it (connections of a stopped one, left in TIME_WAIT, do not count:
    the engine's JVM binds with SO_REUSEADDR as this probe does)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def prepare(engine: EmbeddedDynamoDB, table: str) -> None:
    """The table, and the sample race's items as ``create_race`` writes a race's."""
    engine.create_table(table)
    client = engine.client()
    for item in e.new_race_items(SAMPLE_RACE):
        client.put_item(TableName=table, Item=item.to_item())


NEXT = """DynamoDB Local for `sam local invoke` is ready on {url}: table {table}, sample race {race}.
In another terminal (Docker running){synth}, run the functions in this order:

  SAM="sam local invoke -t cdk.out/Alleycat.template.json --env-vars events/env.json --docker-network host"
{commands}

Ctrl-C stops it (the data goes with it)."""
COMMANDS = "\n".join(f"  $SAM {logical_id(name):<27} -e events/{name}.json" for name in ORDER)


def main() -> None:
    from .server import wait_for_ctrl_c

    table, port = settings()
    if not port_free(port):
        sys.exit(f"port {port} (events/env.json) is taken: is `make sam-db` already running in another terminal?")
    engine = EmbeddedDynamoDB(port=port)
    try:
        engine.start()
    except EngineUnavailable as error:
        sys.exit(f"cannot start DynamoDB Local: {error}")
    try:
        prepare(engine, table)
        synthesized = (ROOT / "cdk.out" / "Alleycat.template.json").is_file()
        print(NEXT.format(url=engine.url, table=table, race=RACE_ID, commands=COMMANDS,
                          synth="" if synthesized else ", once `make synth` has made cdk.out"), flush=True)
        wait_for_ctrl_c()
    finally:
        engine.stop()


if __name__ == "__main__":
    main()
