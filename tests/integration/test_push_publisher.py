"""The stream processor's publisher (alleycat.aws.events) against what is out of process: a port with no
server, a fresh interpreter, and the local stack's stand-in Event API on loopback."""

import json
import subprocess
import sys

import pytest

from alleycat.aws import events


def test_a_publish_that_reaches_no_server_raises_the_connection_error():
    from botocore.credentials import Credentials

    publisher = events.Publisher("http://127.0.0.1:9/event", "us-east-1", Credentials("AKID", "secret"))
    with pytest.raises(ConnectionRefusedError):
        publisher.publish("/races/x", [{}])


def test_a_publish_the_api_refuses_raises_a_publish_error_with_its_status():
    from botocore.credentials import Credentials

    from local.eventapi import EventApi

    api = EventApi(access_key="AKID", secret_key="secret", region="eu-west-1").start()
    try:
        publisher = events.Publisher(api.http_url, "eu-west-1", Credentials("AKID", "not the secret"))
        with pytest.raises(events.PublishError, match=r"^40[13]: "):
            publisher.publish("/races/x", [{}])
        assert api.stats["publish_requests"] == 0
    finally:
        api.stop()


def test_importing_push_and_its_publisher_loads_nothing_of_botocore():
    # Given a fresh interpreter / When the stream processor's push modules are imported
    code = "import json, sys; import alleycat.edge.push, alleycat.aws.events; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(events.__file__).rsplit("/alleycat/", 1)[0], "PATH": "/usr/bin:/bin"})
    # Then botocore (its signer) and http.client wait for the first publish
    modules = json.loads(done.stdout)
    assert not [m for m in modules if m.startswith(("botocore", "boto3", "http.client"))]


def test_the_publisher_keeps_its_connection_and_tries_once_more_when_a_kept_one_was_closed():
    from botocore.credentials import Credentials

    from local.eventapi import EventApi

    api = EventApi(access_key="AKID", secret_key="secret", region="eu-west-1").start()
    try:
        publisher = events.Publisher(api.http_url, "eu-west-1", Credentials("AKID", "secret"))
        for n in range(3):
            assert publisher.publish("/races/x", [{"n": n}])["failed"] == []
        assert len(publisher._idle) == 1  # one connection served all three
        publisher._idle[0].sock.close()   # the server's side of a kept connection went away
        assert publisher.publish("/races/x", [{"n": 3}])["failed"] == []
        assert api.stats["publish_requests"] == 4
    finally:
        api.stop()
