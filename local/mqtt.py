"""The local stack's MQTT broker: bikes' telemetry over MQTT 3.1.1 on a WebSocket (contract v1.3,
"Telemetry over MQTT"), as IoT Core takes it in AWS.

A real broker (amqtt, asyncio) on a port of its own, in a thread of its own, with three plugins that
share one ``Gate``:

- ``TokenAuth``: hands the authorizer IoT Core's custom authorizer runs in AWS
  (``alleycat.edge.ingest_auth``) the event IoT would send it (user name, password base64, client id): the
  user name is ``alleycat.edge.mqtt.USERNAME``, the password the racer's access token (the user pool's
  issuer, its app client, ``API_SCOPES``). Not authenticated, or a policy that does not allow
  ``iot:Connect`` for the client id: CONNACK "not authorized" (return code 5).
- ``OwnTopics``: a publish goes through only where the connection's policy documents allow ``iot:Publish``
  on the topic's ARN, matched as IoT matches it (``allows``: ``*`` and ``?``, a Deny first), and only until
  ``disconnectAfterInSeconds`` (when IoT would close the connection); nobody subscribes (nothing is delivered
  to clients). A refused publish is dropped by the broker (QoS 1: still acknowledged, as MQTT 3.1.1 has no
  way to refuse one).
- ``Ingest``: each publish let through is handed, with the stack's clock at its arrival, to
  ``alleycat.edge.mqtt.ingest`` in the API's worker processes (``Runtime.call``: the stack's clock is
  theirs too), which counts it as ``POST /races/{raceId}/telemetry`` does. The broker never waits for it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import Any

from amqtt.broker import Broker
from amqtt.contexts import Action
from amqtt.events import BrokerEvents
from amqtt.plugins.base import BaseAuthPlugin, BasePlugin, BaseTopicPlugin
from amqtt.session import Session

from alleycat.edge import ingest_auth
from alleycat.edge import mqtt as edge
from stacks.settings import API_SCOPES

from .restjson import ACCOUNT

PATH = "/mqtt"  # the WebSocket's path in GET /config.json's ingest.url (the broker takes any)
ARN_PREFIX = f"arn:aws:iot:us-east-1:{ACCOUNT}:"  # the local stack's IoT ARNs
_GRANT = "_alleycat_grant"  # the session attribute holding (policy documents, when IoT would disconnect)
log = logging.getLogger("alleycat.local.mqtt")
# Messages handed to the API's workers at once: as many as the HTTP server's threads would post (one a request). The
# event loop's default executor has 6 threads, which capped 100 bikes at what 6 calls in a row get through.
INGEST_THREADS = 128


def authorizer(issuer: str, client_id: str, clock: Any) -> ingest_auth.IngestAuthorizer:
    """The custom authorizer's code, configured as the stack configures it in AWS (no topic rule locally)."""
    return ingest_auth.IngestAuthorizer(ingest_auth.Config(
        issuer, client_id, API_SCOPES, edge.USERNAME, ingest_auth.topic_arn(ARN_PREFIX, edge.TOPIC),
        ingest_auth.client_arn(ARN_PREFIX)), now=clock.now)


def allows(policies: Iterable[dict], action: str, resource: str) -> bool:
    """Whether IoT policy documents allow ``action`` on ``resource``: an explicit Deny wins, else an Allow;
    ``Action`` and ``Resource`` a string or a list, ``*`` any characters (``/`` too) and ``?`` one."""
    effects = {statement.get("Effect") for policy in policies for statement in _statements(policy)
               if _any_matches(statement.get("Action"), action, case=False)
               and _any_matches(statement.get("Resource"), resource, case=True)}
    return "Allow" in effects and "Deny" not in effects


def _statements(policy: dict) -> list[dict]:
    statements = policy.get("Statement", [])
    return statements if isinstance(statements, list) else [statements]


def _any_matches(patterns: object, value: str, *, case: bool) -> bool:
    listed = patterns if isinstance(patterns, list) else [patterns]
    return any(isinstance(pattern, str) and _pattern(pattern, case).fullmatch(value) for pattern in listed)


@cache
def _pattern(pattern: str, case: bool) -> re.Pattern[str]:
    body = "".join(".*" if part == "*" else "." if part == "?" else re.escape(part) for part in re.split(r"([*?])", pattern))
    return re.compile(body, re.DOTALL if case else re.DOTALL | re.IGNORECASE)


@dataclass
class Gate:
    """What the plugins share: the custom authorizer's code, the stack's clock and where messages go."""

    authorizer: ingest_auth.IngestAuthorizer
    clock: Any  # local.clock: now()
    ingest: Callable[[str, bytes, float], object]  # (topic, payload, arrival), in a worker: blocking


@dataclass
class GateConfig:
    """Each plugin's ``Config`` (amqtt fills it from the broker's configuration)."""

    gate: Any = None


class TokenAuth(BaseAuthPlugin):
    Config = GateConfig

    async def authenticate(self, *, session: Session) -> bool:
        gate: Gate = self.config.gate
        password = session.password.encode() if isinstance(session.password, str) else bytes(session.password or b"")
        event = {"protocols": ["mqtt"], "signatureVerified": False, "protocolData": {"mqtt": {
            "username": session.username, "password": base64.b64encode(password).decode(), "clientId": session.client_id}}}
        verdict = await asyncio.to_thread(gate.authorizer.authorize, event)
        policies = [json.loads(document) for document in verdict.response()["policyDocuments"]]
        if not verdict.authenticated or not allows(policies, "iot:Connect", f"{ARN_PREFIX}client/{session.client_id}"):
            log.info("MQTT connect refused: %s", verdict.why or "the policy does not allow iot:Connect")
            return False
        setattr(session, _GRANT, (policies, gate.clock.now() + verdict.disconnect_after))
        return True


class OwnTopics(BaseTopicPlugin):
    Config = GateConfig

    async def topic_filtering(self, *, session: Session | None = None, topic: str | None = None,
                              action: Action | None = None) -> bool:
        grant = getattr(session, _GRANT, None)
        if action != Action.PUBLISH or grant is None or not topic:
            return False
        policies, disconnect_at = grant
        return self.config.gate.clock.now() < disconnect_at and allows(policies, "iot:Publish", f"{ARN_PREFIX}topic/{topic}")


class Ingest(BasePlugin):
    Config = GateConfig

    async def on_broker_message_broadcast(self, *, client_id: str, message: Any) -> None:
        gate: Gate = self.config.gate
        arrival = gate.clock.now()
        try:
            await asyncio.get_running_loop().run_in_executor(
                _ingest_pool(), gate.ingest, message.topic, bytes(message.data or b""), arrival)
        except Exception as error:  # noqa: BLE001 - a message's failure never stops the broker
            log.warning("MQTT message from %s on %s not ingested: %r", client_id, message.topic, error)


_POOL: list[ThreadPoolExecutor] = []


def _ingest_pool() -> ThreadPoolExecutor:
    """The threads that hand messages to the API's workers (made with the first message, kept for the process)."""
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(max_workers=INGEST_THREADS, thread_name_prefix="mqtt-ingest"))
    return _POOL[0]
class BasicIngestBroker(Broker):
    """amqtt, taking publishes to IoT Core's Basic Ingest topics (``$aws/rules/<rule>/...``): such a message goes
    to the rule (the ``Ingest`` plugin) and to no subscriber, as in IoT Core. amqtt alone refuses every topic
    that starts with ``$`` and closes the connection (it reads MQTT-4.7.2-1, about subscriptions, as about
    publishes)."""

    async def _handle_message_delivery(self, client_session: Session, handler: Any, wait_deliver: asyncio.Future[Any]) -> bool:
        message = wait_deliver.result()
        if message is None or not message.topic or not message.topic.startswith(edge.BASIC_INGEST.format(rule="")[:-1]):
            return await super()._handle_message_delivery(client_session, handler, wait_deliver)
        if await self._topic_filtering(client_session, topic=message.topic, action=Action.PUBLISH):
            await self.plugins_manager.fire_event(BrokerEvents.MESSAGE_BROADCAST, client_id=client_session.client_id,
                                                  message=message)
        else:
            log.info("%s may not publish to %s", client_session.client_id, message.topic[:200])
        return True


class MqttBroker:
    """``start()`` returns once the broker listens on ``host``:``port`` (0: a free one, then ``port`` is it)."""

    def __init__(self, gate: Gate, host: str = "127.0.0.1", port: int = 0):
        self.gate, self.host, self.port = gate, host, port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broker: Broker | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}{PATH}"

    @property
    def config(self) -> dict:
        """GET /config.json's ``ingest``."""
        return {"url": self.url, "username": edge.USERNAME, "topic": edge.TOPIC}

    def start(self) -> MqttBroker:
        loop = self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="mqtt", daemon=True)
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self._start(), loop).result(timeout=30)
        except BaseException:
            self._broker = None
            self._halt()
            raise
        return self

    async def _start(self) -> None:
        plugins = {f"{__name__}.{plugin.__name__}": {"gate": self.gate} for plugin in (TokenAuth, OwnTopics, Ingest)}
        config = {"listeners": {"default": {"type": "ws", "bind": f"{self.host}:{self.port}"}}, "plugins": plugins}
        self._broker = BasicIngestBroker(config, loop=asyncio.get_running_loop())
        await self._broker.start()
        server = self._broker._servers["default"].instance
        self.port = next(iter(server.sockets)).getsockname()[1]

    def stop(self) -> None:
        if self._loop is not None and self._broker is not None:
            asyncio.run_coroutine_threadsafe(self._broker.shutdown(), self._loop).result(timeout=10)
        self._halt()

    def _halt(self) -> None:
        if self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread:
            self._thread.join(timeout=10)
        self._loop.close()
        self._loop = None
