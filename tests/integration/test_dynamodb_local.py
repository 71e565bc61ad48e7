"""The embedded engine (local/dynamodb_local.py): starts, answers, explains what is missing, never outlives us."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from local import dynamodb_local
from local.dynamodb_local import EmbeddedDynamoDB, EngineUnavailable

CHILD = """
import signal
import time
from local.dynamodb_local import QUICK_JIT, EmbeddedDynamoDB
signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's ^C finds it: a background job inherits it ignored
engine = EmbeddedDynamoDB(jvm_options=QUICK_JIT).start()
print(engine.process.pid, flush=True)
time.sleep(60)
"""


def test_the_session_engine_is_dynamodb_local_with_the_alleycat_table(dynamodb_local):
    # Given the engine the tests share, When a table is created in it
    description = dynamodb_local.create_table("engine-check")
    # Then it is the real thing: the table's stream and the inverted index exist
    assert description["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert [i["IndexName"] for i in description["GlobalSecondaryIndexes"]] == ["inverted"]
    assert "ddblocal" in description["LatestStreamArn"]
    dynamodb_local.client().delete_table(TableName="engine-check")


def test_without_java_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setattr(dynamodb_local.shutil, "which", lambda name: None)
    with pytest.raises(EngineUnavailable, match="Java runtime.*default-jre-headless"):
        EmbeddedDynamoDB().start()


def test_without_the_npm_package_the_error_says_to_run_npm_ci(monkeypatch, tmp_path):
    monkeypatch.setattr(dynamodb_local, "PACKAGE", tmp_path)
    with pytest.raises(EngineUnavailable, match="npm ci"):
        EmbeddedDynamoDB().start()


def _gone(pid: int, within: float = 15) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split()[2] == "Z":  # exited, not yet reaped
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_the_engine_stops_with_the_process_that_started_it(how):
    # Given a Python process that started an engine
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=_ctrl_c_as_in_a_terminal)
    engine_pid = int(child.stdout.readline())
    # When that process is interrupted (Ctrl-C) or killed outright
    child.send_signal(how)
    try:
        child.wait(timeout=30)
    except subprocess.TimeoutExpired:  # say where each process was
        states = {name: _where(pid) for name, pid in (("python", child.pid), ("engine", engine_pid))}
        child.kill()
        pytest.fail(f"the process did not exit within 30 s of {how.name}: {states}; stderr: {child.stderr.read()[-2000:]}")
    # Then the engine's JVM is gone too
    assert _gone(engine_pid)


def _ctrl_c_as_in_a_terminal() -> None:
    """A job started in the background by a shell without job control (nohup, some CI runners)
    inherits SIGINT ignored, and Python then keeps ignoring it: the child would sleep through the
    Ctrl-C this test sends. A program run from a terminal has the default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _where(pid: int) -> str:
    """A process's state and the kernel function it waits in (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as stat, open(f"/proc/{pid}/wchan") as wchan:
            return f"state {stat.read().split()[2]}, waiting in {wchan.read() or '-'}"
    except OSError as error:
        return f"gone ({error.strerror})"


def test_an_on_disk_engine_keeps_its_data_in_a_folder_removed_on_stop():
    # Given an engine on a temporary database file, as `make local` starts one
    from local.dynamodb_local import QUICK_JIT

    engine = EmbeddedDynamoDB(in_memory=False, jvm_options=QUICK_JIT).start()
    try:
        # When a table is made / Then its data is in the engine's folder
        engine.create_table("disk-check")
        assert any(Path(engine.db_path).iterdir())
    finally:
        engine.stop()
    # And stopping the engine removed that folder
    assert not Path(engine.db_path).exists()
