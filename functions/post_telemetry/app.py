"""POST /races/{raceId}/telemetry: samples counted exactly once (a racer for themself, admin for any)."""

from alleycat.edge import http, routes
from alleycat.flows import telemetry
from alleycat.observability import count

app = http.create_app()
SCHEMA = routes.by_function("post_telemetry").request


@http.route(app, "post_telemetry")
def post_telemetry(raceId: str):
    race_id = http.race_id(raceId)
    caller = http.identity(app)
    body = http.body(app, SCHEMA)
    outcome = telemetry.ingest(race_id, body["samples"], caller.sub, caller.is_admin, http.idempotency_key(app),
                               body.get("device"), http.request_time(app))
    # Accepted samples are counted by the stream processor, once per batch (SamplesAccepted): a
    # bike's healthy one-sample request writes no line at all. What is not plain is counted here.
    if outcome.duplicates:
        count("SamplesDuplicate", outcome.duplicates)
    if outcome.rejected:
        count("SamplesRejected", len(outcome.rejected))
    return http.respond(outcome.as_body())


handler = http.lambda_handler(app)
