"""The unit layer runs in this process alone: a test that starts a process or opens a network
connection fails here, and belongs in tests/integration."""

import socket
import subprocess

import pytest


class OutOfProcess(AssertionError):
    pass


@pytest.fixture(autouse=True)
def in_process_only(monkeypatch):
    def refuse(what):
        def refused(*args, **kwargs):
            raise OutOfProcess(f"a unit test may not {what}: move it to tests/integration")
        return refused

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse("start a process"))
    monkeypatch.setattr(socket.socket, "connect", refuse("open a network connection"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("open a network connection"))
    monkeypatch.setattr(socket.socket, "bind", refuse("listen on a port"))
