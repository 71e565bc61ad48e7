"""The local stack's MQTT broker: bikes' telemetry over MQTT 3.1.1 on a WebSocket (contract v1.3,
"Telemetry over MQTT"), as IoT Core takes it in AWS.

A real broker (amqtt, asyncio) on a port of its own, in a thread of its own, with three plugins that
share one ``Gate``:

- ``TokenAuth``: the user name is ``alleycat.edge.mqtt.USERNAME``, the password the racer's access token,
  verified by the very ``JwtAuthorizer`` the local API checks bearer tokens with (the user pool's issuer,
  its app client, ``API_SCOPES``); anything else gets CONNACK "not authorized" (return code 5).
- ``OwnTopics``: a racer publishes to their own telemetry topic only (``alleycat.edge.mqtt.may_publish``),
  while their token lasts; nobody subscribes (nothing is delivered to clients). A refused publish is
  dropped by the broker (QoS 1: still acknowledged, as MQTT 3.1.1 has no way to refuse one).
- ``Ingest``: each publish let through is handed, with the stack's clock at its arrival, to
  ``alleycat.edge.mqtt.ingest`` in the API's worker processes (``Runtime.call``: the stack's clock is
  theirs too), which counts it as ``POST /races/{raceId}/telemetry`` does. The broker never waits for it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from amqtt.broker import Broker
from amqtt.contexts import Action
from amqtt.events import BrokerEvents
from amqtt.plugins.base import BaseAuthPlugin, BasePlugin, BaseTopicPlugin
from amqtt.session import Session

from alleycat.edge import mqtt as edge
from stacks.settings import API_SCOPES

from .auth import JwtAuthorizer

PATH = "/mqtt"  # the WebSocket's path in GET /config.json's ingest.url (the broker takes any)
_RACER = "_alleycat_racer"  # the session attribute holding (sub, token expiry)
log = logging.getLogger("alleycat.local.mqtt")


@dataclass
class Gate:
    """What the plugins share: the tokens' authorizer, the stack's clock and where messages go."""

    authorizer: JwtAuthorizer
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
        if session.username != edge.USERNAME or not session.password:
            return False
        claims, why = await asyncio.to_thread(gate.authorizer.verify, str(session.password), API_SCOPES)
        if claims is None:
            log.info("MQTT connect refused: %s", why)
            return False
        setattr(session, _RACER, (claims["sub"], float(claims["exp"])))
        return True


class OwnTopics(BaseTopicPlugin):
    Config = GateConfig

    async def topic_filtering(self, *, session: Session | None = None, topic: str | None = None,
                              action: Action | None = None) -> bool:
        racer = getattr(session, _RACER, None)
        if action != Action.PUBLISH or racer is None or not topic:
            return False
        sub, expires = racer
        return self.config.gate.clock.now() < expires and edge.may_publish(sub, topic)


class Ingest(BasePlugin):
    Config = GateConfig

    async def on_broker_message_broadcast(self, *, client_id: str, message: Any) -> None:
        gate: Gate = self.config.gate
        arrival = gate.clock.now()
        try:
            await asyncio.to_thread(gate.ingest, message.topic, bytes(message.data or b""), arrival)
        except Exception as error:  # noqa: BLE001 - a message's failure never stops the broker
            log.warning("MQTT message from %s on %s not ingested: %r", client_id, message.topic, error)


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
