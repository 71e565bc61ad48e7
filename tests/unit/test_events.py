"""Publishing on AppSync Events (``alleycat.aws.events``): on only where the stack names the endpoint, signed
with SigV4 as the Event API checks it."""

from alleycat.aws import events
from alleycat.settings import EVENT_API_URL
from local.eventapi import SigV4Verifier


def test_publishing_is_off_without_the_endpoint_variable():
    assert events.publisher({}) is None
    url = "https://x.appsync-api.eu-west-1.amazonaws.com/event"
    publisher = events.publisher({EVENT_API_URL: url})
    assert publisher is not None and publisher.url == url


def test_the_publisher_signs_with_sigv4_for_appsync_as_the_event_api_checks_it():
    # Given a publisher with a role's temporary credentials
    from botocore.credentials import Credentials

    url = "https://abc.appsync-api.eu-west-1.amazonaws.com/event"
    publisher = events.Publisher(url, "eu-west-1", Credentials("AKIDEXAMPLE", "secret", "session-token"))
    body = b'{"channel":"/races/x","events":["{}"]}'
    # When it signs a publish
    headers = publisher.signed_headers(body)
    # Then it is SigV4 for the appsync service, signing the host, date, body type and session token
    assert headers["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert "/eu-west-1/appsync/aws4_request" in headers["Authorization"]
    assert headers["X-Amz-Security-Token"] == "session-token"
    # And an independent check of the signature passes, and fails for another body or key
    verifier = SigV4Verifier("AKIDEXAMPLE", "secret", "eu-west-1")
    headers["host"] = "abc.appsync-api.eu-west-1.amazonaws.com"
    assert verifier.verify("POST", "/event", headers, body) is None
    assert verifier.verify("POST", "/event", headers, body + b" ") == "the signature does not match"
    assert SigV4Verifier("AKIDEXAMPLE", "other", "eu-west-1").verify("POST", "/event", headers, body) is not None
    assert SigV4Verifier("AKIDEXAMPLE", "secret", "us-east-1").verify("POST", "/event", headers, body) is not None
