"""The unit layer's own rule (tests/unit/conftest.py): no process, no network."""

import socket
import subprocess
import sys

import pytest

from .conftest import OutOfProcess


def test_a_unit_test_cannot_start_a_process():
    with pytest.raises(OutOfProcess, match="start a process"):
        subprocess.run([sys.executable, "-c", "pass"])


def test_a_unit_test_cannot_open_or_take_a_port():
    with socket.socket() as probe:
        with pytest.raises(OutOfProcess, match="network connection"):
            probe.connect(("127.0.0.1", 9))
        with pytest.raises(OutOfProcess, match="listen on a port"):
            probe.bind(("127.0.0.1", 0))
