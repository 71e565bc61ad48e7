"""Regenerates the sample API Gateway events in this folder: `python events/make_events.py`.

Shaped as API Gateway's REST proxy integration sends them (Cognito claims on the
protected routes); used by the integration tests and by `sam local invoke -e`.
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "layers" / "alleycat" / "python")]

from alleycat.routes import ROUTES  # noqa: E402
from local.events import rest_event  # noqa: E402

RACE_ID = "01JD5Z6Q8X0000000000000000"
PARAMETERS = {"racerId": "racer-1", "classId": "hill-climb", "raceId": RACE_ID}
BODIES = {
    "put_racer": {"name": "Racer One"},
    "put_class": {"name": "Hill climb", "description": "Steady climb, high resistance"},
    "create_race": {"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 300},
    "post_telemetry": {"samples": [{"racerId": "racer-1", "second": 0, "cadence": 82, "resistance": 47},
                                   {"racerId": "racer-1", "second": 1, "cadence": 84.5, "resistance": 47}]},
}
QUERIES = {"get_racer_results": "limit=10", "get_class_races": "limit=10", "get_class_leaderboard": "limit=10",
           "get_race_leaderboard": "limit=10", "get_racer_history": f"raceId={RACE_ID}"}
CLAIMS = {"sub": "racer-1", "cognito:groups": "admin"}
HOST = "abc123.execute-api.eu-west-1.amazonaws.com"


def main() -> None:
    for route in ROUTES:
        names = [part.strip("{}") for part in route.path.split("/") if part.startswith("{")]
        path = route.path
        for name in names:
            path = path.replace("{%s}" % name, PARAMETERS[name])
        body = json.dumps(BODIES[route.function]) if route.function in BODIES else None
        headers = {"Accept": "application/json", "Host": HOST, "User-Agent": "curl/8.5.0", "X-Forwarded-Proto": "https"}
        if body:
            headers["Content-Type"] = "application/json"
        if route.protected:
            headers["Authorization"] = "eyJraWQiOi...example"
        event = rest_event(route, path, {name: PARAMETERS[name] for name in names}, QUERIES.get(route.function, ""),
                           headers, body, CLAIMS if route.protected else None, "203.0.113.10")
        event["requestContext"].update({"stage": "prod", "path": f"/prod{path}", "accountId": "123456789012",
                                        "apiId": "abc123", "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
                                        "requestTimeEpoch": 1763805600000, "domainName": HOST})
        (HERE / f"{route.function}.json").write_text(json.dumps(event, indent=2) + "\n")


if __name__ == "__main__":
    main()
