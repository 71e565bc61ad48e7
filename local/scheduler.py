"""A stand-in for Amazon EventBridge Scheduler on loopback: its protocol (rest-json, SigV4), for `make local`.

The operations as botocore's ``scheduler`` 2021-06-30 model has them, signed for service ``scheduler``:

==============  ============================================  ===========================================
operation       request                                       answer (200)
==============  ============================================  ===========================================
CreateSchedule  ``POST /schedules/{Name}``, the schedule      ``{"ScheduleArn"}``
GetSchedule     ``GET /schedules/{Name}?groupName=``          the schedule, defaults filled in
DeleteSchedule  ``DELETE /schedules/{Name}?groupName=``       ``{}``
ListSchedules   ``GET /schedules?ScheduleGroup=&NamePrefix=   ``{"Schedules": [summaries], "NextToken"}``
                &State=&MaxResults=&NextToken=``             by group and name
==============  ============================================  ===========================================

Errors carry ``x-amzn-ErrorType`` and ``{"Message"}``: ``ValidationException`` (400),
``ResourceNotFoundException`` (404: no such schedule, or group), ``ConflictException`` (409: the name
is taken in its group); a request not signed with the stand-in's credentials is a 403. A schedule's
group is ``default`` unless named; other groups exist when given to the constructor.

What a schedule does, as the EventBridge Scheduler User Guide says, on the ``clock`` (a thread looks
every ``TICK_SECONDS`` of real time, so a ``ManualClock`` schedule fires just after the test moves
the clock past it, never before):

- Only one-time schedules: ``at(yyyy-mm-ddThh:mm:ss)`` in ``ScheduleExpressionTimezone`` (UTC unless
  named). A time already past is refused; so are ``rate(...)`` and ``cron(...)`` (not run locally)
  and a ``FLEXIBLE`` time window.
- "60 second precision": a schedule fires at the start of its minute plus ``delivery()`` seconds,
  drawn as it is created (by default uniform in [0, 60)). A schedule for 18:35:30 may fire at 18:35:05.
- Firing is ``invoke(target ARN, Input)`` (Input ``"{}"`` when none) on a thread of its own; for a
  Lambda target that is Lambda's asynchronous invoke (``LambdaApi.invoke_async``). If it raises, it
  is retried ``RetryPolicy.MaximumRetryAttempts`` times but at most ``MAX_LOCAL_RETRIES`` (AWS: up
  to 185, with exponential backoff, for ``MaximumEventAgeInSeconds``), ``FIRST_RETRY_SECONDS`` of
  real time apart, doubling; then the event goes to ``dead_letters`` if ``DeadLetterConfig`` names a
  queue. ``fired`` holds each firing and how its delivery ended.
- ``ActionAfterCompletion: DELETE``: the schedule is deleted once its delivery has ended; ``NONE``:
  it stays. A ``DISABLED`` schedule does not fire.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from http.server import ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .eventapi import SigV4Verifier
from .restjson import ACCOUNT, RestJsonHandler, serve

SERVICE = "scheduler"
DEFAULT_GROUP = "default"
PRECISION_SECONDS = 60
TICK_SECONDS = 0.05
MAX_LOCAL_RETRIES = 3
FIRST_RETRY_SECONDS = 0.05
DEFAULT_RETRY_POLICY = {"MaximumEventAgeInSeconds": 86400, "MaximumRetryAttempts": 185}
MAX_RESULTS = 100
NAME_PATTERN = "^[0-9a-zA-Z-_.]+$"
NAME = re.compile(r"[0-9a-zA-Z\-_.]{1,64}")
AT = re.compile(r"at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)")
SCHEDULES_PATH = re.compile(r"/schedules(?:/(?P<name>[^/]+))?")
REQUIRED = ("ScheduleExpression", "FlexibleTimeWindow", "FlexibleTimeWindow.Mode", "Target", "Target.Arn",
            "Target.RoleArn")
OPTIONAL = ("Description", "StartDate", "EndDate", "KmsKeyArn")


class SchedulerError(Exception):
    """An error EventBridge Scheduler answers with: status, ``x-amzn-ErrorType``, message."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def answer(self) -> tuple[int, bytes, dict[str, str]]:
        return self.status, json.dumps({"Message": self.message}).encode(), {"x-amzn-ErrorType": self.code}


def invalid(*violations: str) -> SchedulerError:
    """A ValidationException in AWS's words for constraint violations (``Value ... at ... failed ...``)."""
    count = len(violations)
    return SchedulerError(400, "ValidationException", f"{count} validation error{'s' * (count > 1)} detected: "
                                                      + "; ".join(violations))


def violation(value, member: str, constraint: str) -> str:
    shown = "null" if value is None else f"'{value}'"
    return f"Value {shown} at '{member}' failed to satisfy constraint: Member must {constraint}"


def refused(message: str) -> SchedulerError:
    return SchedulerError(400, "ValidationException", message)


def not_found(message: str) -> SchedulerError:
    return SchedulerError(404, "ResourceNotFoundException", message)


def member(path: str) -> str:
    """A request field as AWS's validation messages name it: ``Target.RoleArn`` is ``target.roleArn``."""
    return ".".join(part[0].lower() + part[1:] for part in path.split("."))


def lookup(request: dict, path: str):
    found: object = request
    for part in path.split("."):
        found = found.get(part) if isinstance(found, dict) else None
    return found


def check_name(value: str | None, name: str) -> None:
    if value is not None and not NAME.fullmatch(value):
        raise invalid(violation(value, name, f"satisfy regular expression pattern: {NAME_PATTERN}"))


def check_enum(value, name: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise invalid(violation(value, name, f"satisfy enum value set: [{', '.join(allowed)}]"))


def check_range(value, name: str, low: int, high: int) -> None:
    if not isinstance(value, int) or not low <= value <= high:
        raise invalid(violation(value, name, f"have value between {low} and {high}"))


def at_time(expression: str, timezone: str) -> float:
    """The epoch time of an ``at(...)`` expression read in ``timezone``; SchedulerError if it is not one."""
    found = AT.fullmatch(expression)
    if not found:
        if expression.startswith(("rate(", "cron(")):
            raise refused(f"Only one-time schedules, at(yyyy-mm-ddThh:mm:ss), are supported locally, not {expression}")
        raise refused(f"Invalid Schedule Expression {expression}")
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise refused(f"Invalid ScheduleExpressionTimezone {timezone}") from None
    try:
        return datetime.strptime(found[1], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=zone).timestamp()
    except ValueError:
        raise refused(f"Invalid Schedule Expression {expression}") from None


def page_token(key: tuple[str, str]) -> str:
    """ListSchedules' NextToken: the (group, name) of the page's last schedule (names hold no ``/``)."""
    return base64.urlsafe_b64encode("/".join(key).encode()).decode()


def after_token(token: str) -> tuple[str, ...]:
    try:
        key = tuple(base64.urlsafe_b64decode(token.encode()).decode().split("/"))
    except (ValueError, binascii.Error):
        key = ()
    if len(key) != 2:
        raise refused("Invalid NextToken")
    return key


@dataclass
class Schedule:
    """A stored schedule: GetSchedule's answer, and the clock time it fires at."""

    description: dict
    due: float
    fired: bool = False


@dataclass
class Firing:
    """A schedule that came due: the clock's time then, what it sent, and how its delivery ended."""

    schedule_arn: str
    target_arn: str
    input: str
    at: float
    attempts: int = 0
    error: Exception | None = None  # the last attempt's, when every attempt failed
    done: threading.Event = field(default_factory=threading.Event)


class SchedulerApi:
    """``start()`` serves the API on a loopback port (``url``, for ``AWS_ENDPOINT_URL_SCHEDULER``) and
    fires schedules; ``stop()`` ends both. ``schedules`` is what is stored, ``fired`` and
    ``dead_letters`` what happened; ``wait_tick()`` waits for the schedules to be checked against the
    clock as it is now."""

    def __init__(self, clock, invoke: Callable[[str, str], object], *, host: str = "127.0.0.1", port: int = 0,
                 delivery: Callable[[], float] | None = None, groups: Iterable[str] = (), access_key: str = "local",
                 secret_key: str = "local", region: str = "us-east-1", account: str = ACCOUNT):
        self.clock, self.invoke = clock, invoke
        self.delivery = delivery or (lambda: PRECISION_SECONDS * random.random())
        self.groups = {DEFAULT_GROUP, *groups}
        self.host, self.port, self.region, self.account = host, port, region, account
        self.verifier = SigV4Verifier(access_key, secret_key, region, SERVICE)
        self.fired: list[Firing] = []
        self.dead_letters: list[dict] = []
        self._schedules: dict[tuple[str, str], Schedule] = {}
        self._lock = threading.Lock()
        self._ticked = threading.Condition()
        self._ticks = 0
        self._stopping = threading.Event()
        self._http: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def schedules(self) -> dict[tuple[str, str], Schedule]:
        """The stored schedules by (group, name)."""
        with self._lock:
            return dict(self._schedules)

    def start(self) -> SchedulerApi:
        self._http = serve(self.host, self.port, SchedulerHandler, self)
        self.port = self._http.server_address[1]
        threading.Thread(target=self._tick_until_stopped, name="scheduler-ticks", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._http:
            self._http.shutdown()
            self._http.server_close()

    def wait_tick(self, timeout: float = 5.0) -> None:
        """Returns once every schedule has been checked against the clock's time at the call or later."""
        with self._ticked:
            enough = self._ticks + 2  # the check under way may have read the clock before the call
            if not self._ticked.wait_for(lambda: self._ticks >= enough, timeout):
                raise TimeoutError("the scheduler is not checking its schedules")

    # --- the operations -------------------------------------------------------------------------

    def create_schedule(self, name: str, request: dict) -> dict:
        group = request.get("GroupName") or DEFAULT_GROUP
        missing: list[str] = []
        for path in REQUIRED:
            if lookup(request, path) is None and not any(path.startswith(f"{absent}.") for absent in missing):
                missing.append(path)
        if missing:
            raise invalid(*(violation(None, member(path), "not be null") for path in missing))
        check_name(name, "name")
        check_name(group, "groupName")
        target = request["Target"]
        mode, action = request["FlexibleTimeWindow"]["Mode"], request.get("ActionAfterCompletion", "NONE")
        state, timezone = request.get("State", "ENABLED"), request.get("ScheduleExpressionTimezone", "UTC")
        check_enum(mode, "flexibleTimeWindow.mode", ("OFF", "FLEXIBLE"))
        check_enum(action, "actionAfterCompletion", ("NONE", "DELETE"))
        check_enum(state, "state", ("ENABLED", "DISABLED"))
        retry = {**DEFAULT_RETRY_POLICY, **target.get("RetryPolicy", {})}
        check_range(retry["MaximumRetryAttempts"], "target.retryPolicy.maximumRetryAttempts", 0, 185)
        check_range(retry["MaximumEventAgeInSeconds"], "target.retryPolicy.maximumEventAgeInSeconds", 60, 86400)
        if mode == "FLEXIBLE":
            raise refused("A FLEXIBLE time window is not supported locally; use Mode OFF")
        expression = request["ScheduleExpression"]
        when, now = at_time(expression, timezone), self.clock.now()
        if when < now:
            raise refused(f"The at expression {expression} is in the past")
        if group not in self.groups:
            raise not_found(f"Schedule group {group} does not exist.")
        arn = f"arn:aws:scheduler:{self.region}:{self.account}:schedule/{group}/{name}"
        description = {
            "Arn": arn, "Name": name, "GroupName": group, "ScheduleExpression": expression,
            "ScheduleExpressionTimezone": timezone, "FlexibleTimeWindow": request["FlexibleTimeWindow"],
            "Target": {**target, "RetryPolicy": retry}, "State": state, "ActionAfterCompletion": action,
            "CreationDate": now, "LastModificationDate": now,
            **{key: request[key] for key in OPTIONAL if key in request},
        }
        with self._lock:
            if (group, name) in self._schedules:
                raise SchedulerError(409, "ConflictException", f"Schedule {name} already exists.")
            self._schedules[group, name] = Schedule(description, when - when % PRECISION_SECONDS + self.delivery())
        return {"ScheduleArn": arn}

    def get_schedule(self, name: str, group: str | None) -> dict:
        return self._find(name, group).description

    def delete_schedule(self, name: str, group: str | None) -> dict:
        group = group or DEFAULT_GROUP
        with self._lock:
            self._find(name, group)
            del self._schedules[group, name]
        return {}

    def list_schedules(self, query: dict[str, str]) -> dict:
        group, prefix, state = query.get("ScheduleGroup"), query.get("NamePrefix"), query.get("State")
        check_name(group, "groupName")
        check_name(prefix, "namePrefix")
        if state is not None:
            check_enum(state, "state", ("ENABLED", "DISABLED"))
        asked = query.get("MaxResults", str(MAX_RESULTS))
        check_range(int(asked) if asked.isdigit() else asked, "maxResults", 1, MAX_RESULTS)
        limit, after = int(asked), after_token(query["NextToken"]) if "NextToken" in query else ()
        if group is not None and group not in self.groups:
            raise not_found(f"Schedule group {group} does not exist.")
        matching = [(key, schedule.description) for key, schedule in sorted(self.schedules.items()) if key > after
                    and (group is None or key[0] == group) and key[1].startswith(prefix or "")
                    and (state is None or schedule.description["State"] == state)]
        answer: dict = {"Schedules": [self._summary(description) for _, description in matching[:limit]]}
        if len(matching) > limit:
            answer["NextToken"] = page_token(matching[limit - 1][0])
        return answer

    @staticmethod
    def _summary(description: dict) -> dict:
        keys = ("Arn", "CreationDate", "GroupName", "LastModificationDate", "Name", "State")
        return {**{key: description[key] for key in keys}, "Target": {"Arn": description["Target"]["Arn"]}}

    def _find(self, name: str, group: str | None) -> Schedule:
        check_name(name, "name")
        check_name(group, "groupName")
        schedule = self._schedules.get((group or DEFAULT_GROUP, name))
        if schedule is None:
            raise not_found(f"Schedule {name} does not exist.")
        return schedule

    # --- firing ---------------------------------------------------------------------------------

    def _tick_until_stopped(self) -> None:
        while not self._stopping.wait(TICK_SECONDS):
            self._fire_due()
            with self._ticked:
                self._ticks += 1
                self._ticked.notify_all()

    def _fire_due(self) -> None:
        now = self.clock.now()
        with self._lock:
            due = [schedule for schedule in self._schedules.values()
                   if not schedule.fired and schedule.description["State"] == "ENABLED" and schedule.due <= now]
            for schedule in due:
                schedule.fired = True
        for schedule in due:
            target = schedule.description["Target"]
            firing = Firing(schedule.description["Arn"], target["Arn"], target.get("Input", "{}"), now)
            self.fired.append(firing)
            threading.Thread(target=self._deliver, args=(schedule, firing), name="scheduler-delivery",
                             daemon=True).start()

    def _deliver(self, schedule: Schedule, firing: Firing) -> None:
        target = schedule.description["Target"]
        retries = min(target["RetryPolicy"]["MaximumRetryAttempts"], MAX_LOCAL_RETRIES)
        for attempt in range(retries + 1):
            if attempt:
                time.sleep(FIRST_RETRY_SECONDS * 2 ** (attempt - 1))
            firing.attempts += 1
            try:
                self.invoke(firing.target_arn, firing.input)
                firing.error = None
                break
            except Exception as error:  # noqa: BLE001 - a failed delivery is retried, then dead-lettered
                firing.error = error
        queue = target.get("DeadLetterConfig", {}).get("Arn")
        if firing.error is not None and queue:
            self.dead_letters.append({"QueueArn": queue, "Body": firing.input, "MessageAttributes": {
                "ERROR_CODE": getattr(firing.error, "code", type(firing.error).__name__),
                "ERROR_MESSAGE": str(firing.error), "EXHAUSTED_RETRY_CONDITION": "MaximumRetryAttempts",
                "RETRY_ATTEMPTS": str(firing.attempts - 1), "SCHEDULE_ARN": firing.schedule_arn,
                "TARGET_ARN": firing.target_arn}})
        if schedule.description["ActionAfterCompletion"] == "DELETE":
            key = (schedule.description["GroupName"], schedule.description["Name"])
            with self._lock:
                if self._schedules.get(key) is schedule:
                    del self._schedules[key]
        firing.done.set()


class SchedulerHandler(RestJsonHandler):
    """``/schedules`` and ``/schedules/{Name}``: the four operations; any other request is refused."""

    server_version = "SchedulerLocal/1"

    def do_GET(self):
        body = self.body()
        try:
            self.answer(200, json.dumps(self._operate(body)).encode(), {})
        except SchedulerError as error:
            self.answer(*error.answer())

    do_POST = do_PUT = do_DELETE = do_GET

    def _operate(self, body: bytes) -> dict:
        why = self.refusal(body)
        if why:
            raise SchedulerError(403, *why)
        url = urlsplit(self.path)
        found = SCHEDULES_PATH.fullmatch(url.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        name = unquote(found["name"]) if found and found["name"] else None
        if found and name is None and self.command == "GET":
            return self.api.list_schedules(query)
        if name is not None and self.command in ("GET", "DELETE"):
            operation = self.api.get_schedule if self.command == "GET" else self.api.delete_schedule
            return operation(name, query.get("groupName"))
        if name is not None and self.command == "POST":
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                request = None
            if not isinstance(request, dict):
                raise refused("The request body is not a JSON object")
            return self.api.create_schedule(name, request)
        raise SchedulerError(404, "UnknownOperationException", f"{self.command} {url.path} is not served locally")
