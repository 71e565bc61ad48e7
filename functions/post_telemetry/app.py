"""POST /races/{raceId}/telemetry: samples counted exactly once (a racer for themself, admin for any)."""

from alleycat import http, telemetry
from alleycat.observability import count

app = http.create_app()


@http.route(app, "post_telemetry")
def post_telemetry(raceId: str):
    race_id = http.race_id(raceId)
    caller = http.identity(app)
    samples = http.body(app, telemetry.SCHEMA)["samples"]
    outcome = telemetry.ingest(race_id, samples, caller.sub, caller.is_admin, http.idempotency_key(app))
    count("SamplesAccepted", outcome.accepted)
    count("SamplesDuplicate", outcome.duplicates)
    return http.respond(outcome.as_body())


handler = http.lambda_handler(app)
