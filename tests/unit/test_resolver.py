"""The API functions' router, with the HTTP API's payload format 2.0."""

import base64
import json

import pytest

from alleycat.edge.resolver import APPLICATION_JSON, Resolver, Response


class Refused(Exception):
    pass


def http_event(method, path, headers=None, query=None, body=None, claims=None, encoded=False, stage="$default"):
    context = {"http": {"method": method, "path": path}, "stage": stage, "requestId": "r-1"}
    if claims:
        context["authorizer"] = {"jwt": {"claims": claims, "scopes": None}}
    return {"version": "2.0", "routeKey": f"{method} /races/{{raceId}}", "rawPath": path, "headers": headers or {},
            "queryStringParameters": query, "requestContext": context, "body": body, "isBase64Encoded": encoded}


@pytest.fixture
def app():
    app = Resolver()

    @app.route("/races/{raceId}", method="POST")
    def post(raceId: str):
        event = app.current_event
        authorizer = event.request_context.authorizer
        if event.get_query_string_value("refuse") == "yes":
            raise Refused(raceId)
        return Response(201, APPLICATION_JSON, json.dumps({
            "raceId": raceId, "key": event.headers.get("idempotency-key"), "body": event.decoded_body,
            "sub": authorizer.jwt_claim.get("sub")}))

    @app.exception_handler(Exception)
    def refused(error):
        return Response(409, APPLICATION_JSON, json.dumps({"message": f"refused {error}"}))

    @app.not_found
    def not_found(_error):
        return Response(404, APPLICATION_JSON, json.dumps({"message": "no such route"}))

    return app


def test_a_route_gets_its_path_parameter_headers_in_any_case_body_and_claims(app):
    # Given a request, its body base64-encoded as HTTP APIs send binary types
    event = http_event("POST", "/races/r1", headers={"Idempotency-Key": "k-1"}, body=base64.b64encode(b'{"a":1}').decode(),
                 claims={"sub": "u-1"}, encoded=True)
    # When it is resolved
    response = app.resolve(event, None)
    # Then the view got what the request holds
    assert response["statusCode"] == 201
    assert json.loads(response["body"]) == {"raceId": "r1", "key": "k-1", "body": '{"a":1}', "sub": "u-1"}


def test_the_answer_has_plain_headers_and_no_cors(app):
    answer = app.resolve(http_event("POST", "/races/r1", headers={"origin": "https://a.example"}), None)
    assert answer["headers"] == {"Content-Type": APPLICATION_JSON}
    assert "multiValueHeaders" not in answer


def test_a_named_stage_is_not_part_of_an_http_api_path(app):
    assert app.resolve(http_event("POST", "/prod/races/r1", stage="prod"), None)["statusCode"] == 201


@pytest.mark.parametrize("method, path", [("GET", "/races/r1"), ("POST", "/races/r1/extra"), ("POST", "/races/a/b")])
def test_another_method_or_path_is_the_not_found_handlers(app, method, path):
    response = app.resolve(http_event(method, path), None)
    assert (response["statusCode"], json.loads(response["body"])) == (404, {"message": "no such route"})


def test_an_exception_with_a_handler_becomes_its_response(app):
    response = app.resolve(http_event("POST", "/races/r9", query={"refuse": "yes"}), None)
    assert (response["statusCode"], json.loads(response["body"])) == (409, {"message": "refused r9"})


def test_an_exception_without_a_handler_propagates():
    app = Resolver()

    @app.route("/races/{raceId}", method="POST")
    def broken(raceId: str):
        raise KeyError(raceId)

    with pytest.raises(KeyError):
        app.resolve(http_event("POST", "/races/r1"), None)
