"""A stand-in for AWS Secrets Manager on loopback: its protocol (json 1.1, SigV4), for `make local` and the tests.

``POST /`` with ``X-Amz-Target: secretsmanager.<Operation>``, as botocore's ``secretsmanager`` 2017-10-17 model
has it, signed for service ``secretsmanager`` with the stand-in's credentials (else 400
``UnrecognizedClientException``, as Secrets Manager answers a key it does not know). What the page-token keys
use (``alleycat.aws.page_keys``), as the API reference describes each:

========================  ==========================================================================================
CreateSecret              ``Name``, ``SecretString``: version 1 of a new secret, ``AWSCURRENT``
GetSecretValue            ``SecretId`` (name or ARN), ``VersionId`` and/or ``VersionStage`` (default ``AWSCURRENT``)
PutSecretValue            a version ``ClientRequestToken`` with ``SecretString``, given ``VersionStages`` (default
                          ``AWSCURRENT``); the same token and value again is a no-op, another value
                          ``ResourceExistsException``
DescribeSecret            ``ARN``, ``Name``, ``RotationEnabled``, ``VersionIdsToStages``
UpdateSecretVersionStage  moves ``VersionStage`` to ``MoveToVersionId`` from ``RemoveFromVersionId`` (which must hold
                          it); moving ``AWSCURRENT`` gives the version that held it ``AWSPREVIOUS``
RotateSecret              a new version (``ClientRequestToken``) staged ``AWSPENDING``, without a value, then the
                          rotation function (``rotate(arn, version, step)``) for createSecret, setSecret, testSecret
                          and finishSecret in turn. Secrets Manager invokes it asynchronously; here the answer
                          comes once the four steps have run (a step that raises is the answer's error)
========================  ==========================================================================================

Errors are ``{"__type", "Message"}`` with status 400: ``ResourceNotFoundException`` (no such secret, or no value for
that version and stage), ``InvalidParameterException``, ``InvalidRequestException``, ``ResourceExistsException``.
"""

from __future__ import annotations

import json
import secrets
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer

from .eventapi import SigV4Verifier
from .restjson import ACCOUNT, RestJsonHandler, serve

SERVICE = "secretsmanager"
CURRENT, PREVIOUS, PENDING = "AWSCURRENT", "AWSPREVIOUS", "AWSPENDING"
STEPS = ("createSecret", "setSecret", "testSecret", "finishSecret")


class SecretsManagerError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


@dataclass
class Secret:
    arn: str
    name: str
    values: dict[str, str | None] = field(default_factory=dict)  # version id -> its value (None: staged, not put)
    stages: dict[str, set[str]] = field(default_factory=dict)  # version id -> its staging labels
    rotation: bool = False

    def holder(self, stage: str) -> str | None:
        return next((version for version, labels in self.stages.items() if stage in labels), None)

    def move(self, stage: str, to: str) -> None:
        """``stage`` on version ``to`` alone; moving AWSCURRENT leaves AWSPREVIOUS on the version that held it."""
        was = self.holder(stage)
        for labels in self.stages.values():
            labels.discard(stage)
        self.stages.setdefault(to, set()).add(stage)
        if stage == CURRENT and was is not None and was != to:
            self.move(PREVIOUS, was)


class SecretsManagerApi:
    """``start()`` serves on a free loopback port (``url``); ``stop()`` ends it. ``rotate`` is the rotation function."""

    def __init__(self, rotate: Callable[[str, str, str], object] | None = None, *, host: str = "127.0.0.1",
                 port: int = 0, access_key: str = "local", secret_key: str = "local", region: str = "us-east-1"):
        self.host, self.port, self.region, self.rotate = host, port, region, rotate
        self.verifier = SigV4Verifier(access_key, secret_key, region, SERVICE)
        self._secrets: dict[str, Secret] = {}
        self._lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> SecretsManagerApi:
        server = self._server = serve(self.host, self.port, SecretsManagerHandler, self)
        self.port = server.server_address[1]
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    def operate(self, operation: str, request: dict) -> dict:
        handler = getattr(self, OPERATIONS.get(operation, ""), None)
        if handler is None:
            raise SecretsManagerError("InvalidAction", f"{operation} is not served locally")
        if operation == "RotateSecret":  # it calls back into this API: not under the lock
            return handler(request)
        with self._lock:
            return handler(request)

    def _find(self, secret_id) -> Secret:
        for secret in self._secrets.values():
            if secret_id in (secret.arn, secret.name):
                return secret
        raise SecretsManagerError("ResourceNotFoundException", "Secrets Manager can't find the specified secret.")

    def create_secret(self, request: dict) -> dict:
        name = request.get("Name")
        if not isinstance(name, str) or not name or not isinstance(request.get("SecretString"), str):
            raise SecretsManagerError("InvalidParameterException", "Name and SecretString are required.")
        if any(secret.name == name for secret in self._secrets.values()):
            raise SecretsManagerError("ResourceExistsException", f"The secret {name} already exists.")
        arn = f"arn:aws:secretsmanager:{self.region}:{ACCOUNT}:secret:{name}-{secrets.token_hex(3)}"
        version = request.get("ClientRequestToken") or str(uuid.uuid4())
        secret = self._secrets[arn] = Secret(arn, name, {version: request["SecretString"]}, {version: {CURRENT}})
        return {"ARN": secret.arn, "Name": name, "VersionId": version}

    def get_secret_value(self, request: dict) -> dict:
        secret = self._find(request.get("SecretId"))
        version, stage = request.get("VersionId"), request.get("VersionStage")
        if version is None:
            version = secret.holder(stage or CURRENT)
        if version not in secret.stages or (stage and stage not in secret.stages[version]) \
                or secret.values.get(version) is None:
            raise SecretsManagerError("ResourceNotFoundException",
                                      "Secrets Manager can't find the specified secret value for VersionId or staging label.")
        return {"ARN": secret.arn, "Name": secret.name, "VersionId": version, "SecretString": secret.values[version],
                "VersionStages": sorted(secret.stages[version])}

    def put_secret_value(self, request: dict) -> dict:
        secret = self._find(request.get("SecretId"))
        version, value = request.get("ClientRequestToken") or str(uuid.uuid4()), request.get("SecretString")
        if not isinstance(value, str):
            raise SecretsManagerError("InvalidParameterException", "SecretString is required.")
        if secret.values.get(version) is not None and secret.values[version] != value:
            raise SecretsManagerError("ResourceExistsException",
                                      "You can't modify an existing version, you can only create a new version.")
        secret.values[version] = value
        secret.stages.setdefault(version, set())
        for stage in request.get("VersionStages") or [CURRENT]:
            secret.move(stage, version)
        return {"ARN": secret.arn, "Name": secret.name, "VersionId": version,
                "VersionStages": sorted(secret.stages[version])}

    def describe_secret(self, request: dict) -> dict:
        secret = self._find(request.get("SecretId"))
        return {"ARN": secret.arn, "Name": secret.name, "RotationEnabled": secret.rotation,
                "VersionIdsToStages": {version: sorted(labels) for version, labels in secret.stages.items() if labels}}

    def update_secret_version_stage(self, request: dict) -> dict:
        secret = self._find(request.get("SecretId"))
        stage, to, remove = request.get("VersionStage"), request.get("MoveToVersionId"), request.get("RemoveFromVersionId")
        if not isinstance(stage, str) or not isinstance(to, str):
            raise SecretsManagerError("InvalidParameterException", "VersionStage and MoveToVersionId are required.")
        holder = secret.holder(stage)
        if holder is not None and holder != to and remove != holder:
            raise SecretsManagerError("InvalidParameterException",
                                      f"The parameter RemoveFromVersionId can't be empty. Staging label {stage} is "
                                      f"currently attached to version {holder}, so you must explicitly reference that "
                                      "version in RemoveFromVersionId.")
        if to not in secret.stages:
            raise SecretsManagerError("ResourceNotFoundException", f"Secrets Manager can't find version {to}.")
        secret.move(stage, to)
        return {"ARN": secret.arn, "Name": secret.name}

    def rotate_secret(self, request: dict) -> dict:
        with self._lock:
            secret = self._find(request.get("SecretId"))
            if self.rotate is None:
                raise SecretsManagerError("InvalidRequestException", "No Lambda rotation function ARN is associated with this secret.")
            pending = secret.holder(PENDING)
            if pending is not None and pending != secret.holder(CURRENT):
                raise SecretsManagerError("InvalidRequestException",
                                          "A previous rotation isn't complete. That rotation will be reattempted.")
            version = request.get("ClientRequestToken") or str(uuid.uuid4())
            secret.rotation = True
            secret.values.setdefault(version, None)
            secret.move(PENDING, version)
        for step in STEPS:
            self.rotate(secret.arn, version, step)
        return {"ARN": secret.arn, "Name": secret.name, "VersionId": version}


OPERATIONS = {"CreateSecret": "create_secret", "GetSecretValue": "get_secret_value", "PutSecretValue": "put_secret_value",
              "DescribeSecret": "describe_secret", "UpdateSecretVersionStage": "update_secret_version_stage",
              "RotateSecret": "rotate_secret"}


class SecretsManagerHandler(RestJsonHandler):
    server_version = "SecretsManagerLocal/1"

    def do_POST(self):
        body = self.body()
        try:
            if self.api.verifier.verify(self.command, self.path, dict(self.headers.items()), body):
                raise SecretsManagerError("UnrecognizedClientException",
                                          "The security token included in the request is invalid.")
            target = self.headers.get("X-Amz-Target", "")
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                request = None
            if not target.startswith(f"{SERVICE}.") or not isinstance(request, dict):
                raise SecretsManagerError("InvalidRequestException", "Not a Secrets Manager request.")
            answer = self.api.operate(target.removeprefix(f"{SERVICE}."), request)
            self.answer(200, json.dumps(answer).encode(), {"Content-Type": "application/x-amz-json-1.1"})
        except SecretsManagerError as error:
            self.answer(400, json.dumps({"__type": error.code, "Message": error.message}).encode(),
                        {"Content-Type": "application/x-amz-json-1.1"})


PAGE_TOKEN_KEYS = "alleycat-page-token-keys"


def page_token_keys(host: str, access_key: str, secret_key: str, region: str) -> tuple[SecretsManagerApi, dict[str, str]]:
    """The local stack's page-token keys as the deployed stack keeps them: a secret in a stand-in started here,
    rotated by the rotation function's own code (``alleycat.aws.page_keys.rotate``, run in this process), and the
    environment that points the functions at it (``PAGE_TOKEN_SECRET``, the stand-in's endpoint)."""
    from alleycat.aws import clients, page_keys

    api = SecretsManagerApi(page_keys.rotate, host=host, access_key=access_key, secret_key=secret_key,
                            region=region).start()
    ring = page_keys.KeyRing(page_keys.new_key()).rotated(page_keys.new_key())
    created = api.operate("CreateSecret", {"Name": PAGE_TOKEN_KEYS, "SecretString": ring.to_json()})
    clients.client.cache_clear()  # a client made earlier in this process may point elsewhere
    return api, {"PAGE_TOKEN_SECRET": created["ARN"], "AWS_ENDPOINT_URL_SECRETS_MANAGER": api.url}
