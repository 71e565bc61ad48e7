"""What the functions read from their environment, read once (``load``), and what each deployed
function cannot work without (``NEEDS``).

The stack sets the variables (``stacks/``: a function's own, and ``FUNCTION``, which names it);
the local stack and the tests set them per process (``local.server.configure_environment``,
``tests/conftest.py``). A variable unset outside Lambda switches its feature off; a deployed
function (in Lambda, not under ``sam local``) that lacks one it needs fails its cold start with
``MissingSetting`` naming it, instead of leaving a race unfinished or a board unpushed.

A process that changes its environment after the first ``load`` (the local stack, the bench, a
test) calls ``reset`` so that the next ``load`` reads it again.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

TABLE_NAME = "TABLE_NAME"
# What signs page tokens (alleycat.aws.page_keys), paged routes only: deployed, the Secrets Manager secret holding
# the keys; elsewhere (tests, `sam local invoke`) one key itself
PAGE_TOKEN_SECRET = "PAGE_TOKEN_SECRET"
PAGE_TOKEN_KEY = "PAGE_TOKEN_KEY"
FINISHER_ARN = "FINISHER_ARN"  # the stream processor's: the finisher to invoke for a race just created
FINISH_SCHEDULE_GROUP = "FINISH_SCHEDULE_GROUP"  # the finisher's: where and as whom it schedules itself
FINISH_SCHEDULE_ROLE_ARN = "FINISH_SCHEDULE_ROLE_ARN"
FINISH_DEAD_LETTER_ARN = "FINISH_DEAD_LETTER_ARN"
TICKER_ARN = "TICKER_ARN"  # the stream processor's: the race ticker to start for a race just created
TICKER_SCHEDULE_ROLE_ARN = "TICKER_SCHEDULE_ROLE_ARN"  # the ticker's: as whom it schedules itself (in FINISH_SCHEDULE_GROUP)
TICKER_DEAD_LETTER_ARN = "TICKER_DEAD_LETTER_ARN"
EVENT_API_URL = "EVENT_API_URL"  # where boards are published (AppSync Events' HTTP endpoint)
DYNAMODB_READ_TIMEOUT_SECONDS = "DYNAMODB_READ_TIMEOUT_SECONDS"  # the local stack's; never deployed
# On unless "off": telemetry counts through the fan-in's second blocks and slice boards (docs/fan-in.md), the racers'
# chunks written behind them by the history writer; "off", the chunk path (telemetry writes the racers' chunks).
FAN_IN = "ALLEYCAT_FAN_IN"
# The MQTT authorizer's (alleycat.edge.ingest_auth): the user pool's issuer and app client, the API's scopes
# (space-separated), ingest.username, and the ARNs its policy allows (with {racerId} and {clientId}).
INGEST_ISSUER, INGEST_CLIENT_ID, INGEST_SCOPES = "INGEST_ISSUER", "INGEST_CLIENT_ID", "INGEST_SCOPES"
INGEST_USERNAME, INGEST_TOPIC_ARN, INGEST_CLIENT_ARN = "INGEST_USERNAME", "INGEST_TOPIC_ARN", "INGEST_CLIENT_ARN"
METRICS_DISABLED = "POWERTOOLS_METRICS_DISABLED"
FUNCTION = "ALLEYCAT_FUNCTION"  # which of functions/<name> this is (the stack sets it)
IN_LAMBDA = "AWS_LAMBDA_FUNCTION_NAME"
UNDER_SAM_LOCAL = "AWS_SAM_LOCAL"  # `sam local invoke`: the template's references to other resources are empty

# What each deployed function needs besides TABLE_NAME (every function but the token trigger and the MQTT
# authorizer needs it);
# a route's function needs PAGE_TOKEN_SECRET too when the route is paged (``alleycat.edge.routes``).
NEEDS: dict[str, tuple[str, ...]] = {
    "stream_processor": (TABLE_NAME, FINISHER_ARN, TICKER_ARN, EVENT_API_URL),
    "finish_due_race": (TABLE_NAME, FINISH_SCHEDULE_GROUP, FINISH_SCHEDULE_ROLE_ARN, FINISH_DEAD_LETTER_ARN),
    "tick_race": (TABLE_NAME, EVENT_API_URL, FINISH_SCHEDULE_GROUP, TICKER_SCHEDULE_ROLE_ARN, TICKER_DEAD_LETTER_ARN),
    "token_groups": (),
    "authorize_ingest": (INGEST_ISSUER, INGEST_CLIENT_ID, INGEST_SCOPES, INGEST_USERNAME, INGEST_TOPIC_ARN, INGEST_CLIENT_ARN),
    "ingest_telemetry": (TABLE_NAME,),
    "write_history": (TABLE_NAME,),
    "rotate_page_token_key": (),  # Secrets Manager names the secret in each event
}


class MissingSetting(RuntimeError):
    pass


@dataclass(frozen=True)
class Settings:
    table_name: str | None = None
    page_token_key: str | None = None
    page_token_secret: str | None = None
    finisher_arn: str | None = None
    finish_schedule_group: str | None = None
    finish_schedule_role_arn: str | None = None
    finish_dead_letter_arn: str | None = None
    ticker_arn: str | None = None
    ticker_schedule_role_arn: str | None = None
    ticker_dead_letter_arn: str | None = None
    event_api_url: str | None = None
    dynamodb_read_timeout_seconds: float | None = None  # None: alleycat.storage.dynamo's default
    metrics_enabled: bool = True
    fan_in: bool = True
    region: str = "us-east-1"
    function: str | None = None
    deployed: bool = False

    @property
    def finishes_races(self) -> bool:
        """Races finish by themselves at their end (the stream processor starts the finisher)."""
        return self.finisher_arn is not None

    @property
    def ticks_races(self) -> bool:
        """Races' boards are pushed by their tickers (the stream processor starts one a race)."""
        return self.ticker_arn is not None

    @property
    def publishes_boards(self) -> bool:
        """Boards are published to viewers (an Event API to publish to)."""
        return self.event_api_url is not None

    def needed(self, variable: str) -> str:
        """The text of ``variable`` (one of the names above), which the caller cannot do without:
        ``MissingSetting`` naming it when it is unset."""
        value = getattr(self, _FIELDS[variable])
        if value is None:
            raise MissingSetting(f"{variable} is not set")
        return value

    def missing(self, environ: Mapping[str, str]) -> list[str]:
        """The variables this deployed function needs that ``environ`` lacks (or has empty)."""
        if self.function is None:
            return [FUNCTION]
        if self.function in NEEDS:
            needed = NEEDS[self.function]
        else:
            from alleycat.edge.routes import ROUTES  # a route's function: loaded by its handler already

            paged = {route.function: route.paged for route in ROUTES}
            if self.function not in paged:
                return [f"{FUNCTION} (no function is named {self.function!r})"]
            needed = (TABLE_NAME, PAGE_TOKEN_SECRET) if paged[self.function] else (TABLE_NAME,)
        return [name for name in needed if not environ.get(name)]


_FIELDS = {TABLE_NAME: "table_name", PAGE_TOKEN_KEY: "page_token_key", PAGE_TOKEN_SECRET: "page_token_secret",
           FINISHER_ARN: "finisher_arn",
           FINISH_SCHEDULE_GROUP: "finish_schedule_group", FINISH_SCHEDULE_ROLE_ARN: "finish_schedule_role_arn",
           FINISH_DEAD_LETTER_ARN: "finish_dead_letter_arn", TICKER_ARN: "ticker_arn",
           TICKER_SCHEDULE_ROLE_ARN: "ticker_schedule_role_arn", TICKER_DEAD_LETTER_ARN: "ticker_dead_letter_arn",
           EVENT_API_URL: "event_api_url"}


def read(environ: Mapping[str, str]) -> Settings:
    """The settings ``environ`` holds; ``MissingSetting`` when it is a deployed function's and lacks one it needs."""
    def text(name: str) -> str | None:
        return environ.get(name) or None

    def number(name: str) -> float | None:
        value = text(name)
        return None if value is None else float(value)

    settings = Settings(
        table_name=text(TABLE_NAME), page_token_key=text(PAGE_TOKEN_KEY),
        page_token_secret=text(PAGE_TOKEN_SECRET), finisher_arn=text(FINISHER_ARN),
        finish_schedule_group=text(FINISH_SCHEDULE_GROUP), finish_schedule_role_arn=text(FINISH_SCHEDULE_ROLE_ARN),
        finish_dead_letter_arn=text(FINISH_DEAD_LETTER_ARN), ticker_arn=text(TICKER_ARN),
        ticker_schedule_role_arn=text(TICKER_SCHEDULE_ROLE_ARN), ticker_dead_letter_arn=text(TICKER_DEAD_LETTER_ARN),
        event_api_url=text(EVENT_API_URL),
        dynamodb_read_timeout_seconds=number(DYNAMODB_READ_TIMEOUT_SECONDS),
        metrics_enabled=environ.get(METRICS_DISABLED, "false").lower() != "true",
        fan_in=environ.get(FAN_IN, "on").lower() != "off",
        region=text("AWS_REGION") or text("AWS_DEFAULT_REGION") or "us-east-1",
        function=text(FUNCTION),
        deployed=bool(environ.get(IN_LAMBDA)) and environ.get(UNDER_SAM_LOCAL) != "true")
    if settings.deployed:
        missing = settings.missing(environ)
        if missing:
            raise MissingSetting(f"function {settings.function or environ.get(IN_LAMBDA)} is deployed without "
                                 f"{', '.join(missing)}: its stack must set them (alleycat.settings.NEEDS)")
    return settings


_loaded: Settings | None = None


def load() -> Settings:
    """The process's settings, read from its environment the first time (and after ``reset``)."""
    global _loaded
    if _loaded is None:
        _loaded = read(os.environ)
    return _loaded


def reset() -> None:
    """Forget the settings read: the next ``load`` reads the environment again."""
    global _loaded
    _loaded = None


if os.environ.get(IN_LAMBDA):
    load()  # a deployed function lacking what it needs fails here, at its cold start
