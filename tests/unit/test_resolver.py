"""The API functions' router, with both payload formats API Gateway sends (REST v1, HTTP API v2)."""

import base64
import json

import pytest

from alleycat.resolver import APPLICATION_JSON, CORSConfig, Resolver, Response


class Refused(Exception):
    pass


def rest_event(method, path, headers=None, query=None, body=None, claims=None, encoded=False):
    return {"httpMethod": method, "path": path, "headers": headers, "queryStringParameters": query,
            "requestContext": {"stage": "prod", "requestId": "r-1", "authorizer": {"claims": claims} if claims else None},
            "body": body, "isBase64Encoded": encoded}


def http_event(method, path, headers=None, query=None, body=None, claims=None, encoded=False, stage="$default"):
    context = {"http": {"method": method, "path": path}, "stage": stage, "requestId": "r-1"}
    if claims:
        context["authorizer"] = {"jwt": {"claims": claims, "scopes": None}}
    return {"version": "2.0", "routeKey": f"{method} /races/{{raceId}}", "rawPath": path, "headers": headers or {},
            "queryStringParameters": query, "requestContext": context, "body": body, "isBase64Encoded": encoded}


@pytest.fixture
def app():
    app = Resolver(cors=CORSConfig(allow_origin="*", max_age=300))

    @app.route("/races/{raceId}", method="POST")
    def post(raceId: str):
        event = app.current_event
        authorizer = event.request_context.authorizer
        if event.get_query_string_value("refuse") == "yes":
            raise Refused(raceId)
        return Response(201, APPLICATION_JSON, json.dumps({
            "raceId": raceId, "key": event.headers.get("idempotency-key"), "body": event.decoded_body,
            "sub": (authorizer.claims or authorizer.jwt_claim).get("sub")}))

    @app.exception_handler(Exception)
    def refused(error):
        return Response(409, APPLICATION_JSON, json.dumps({"message": f"refused {error}"}))

    @app.not_found
    def not_found(_error):
        return Response(404, APPLICATION_JSON, json.dumps({"message": "no such route"}))

    return app


@pytest.mark.parametrize("make", [rest_event, http_event])
def test_a_route_gets_its_path_parameter_headers_in_any_case_body_and_claims(app, make):
    # Given a request in either payload format, its body base64-encoded as HTTP APIs send binary types
    event = make("POST", "/races/r1", headers={"Idempotency-Key": "k-1"}, body=base64.b64encode(b'{"a":1}').decode(),
                 claims={"sub": "u-1"}, encoded=True)
    # When it is resolved
    response = app.resolve(event, None)
    # Then the view got what the request holds
    assert response["statusCode"] == 201
    assert json.loads(response["body"]) == {"raceId": "r1", "key": "k-1", "body": '{"a":1}', "sub": "u-1"}


def test_rest_answers_multi_value_headers_and_http_api_plain_ones(app):
    rest = app.resolve(rest_event("POST", "/races/r1", headers={"Origin": "https://a.example"}), None)
    http = app.resolve(http_event("POST", "/races/r1", headers={"origin": "https://a.example"}), None)
    assert rest["multiValueHeaders"]["Content-Type"] == [APPLICATION_JSON]
    assert rest["multiValueHeaders"]["Access-Control-Allow-Origin"] == ["*"]
    assert http["headers"]["Content-Type"] == APPLICATION_JSON
    assert http["headers"]["Access-Control-Max-Age"] == "300"
    assert "headers" not in rest and "multiValueHeaders" not in http


def test_no_cors_headers_without_an_origin_or_for_another_origin():
    app = Resolver(cors=CORSConfig(allow_origin="https://site.example"))
    app.route("/races/{raceId}", method="POST")(lambda raceId: Response(200, APPLICATION_JSON, "{}"))
    for headers in ({}, {"Origin": "https://elsewhere.example"}):
        assert "Access-Control-Allow-Origin" not in app.resolve(http_event("POST", "/races/r1", headers=headers), None)["headers"]
    allowed = app.resolve(http_event("POST", "/races/r1", headers={"Origin": "https://site.example"}), None)
    assert allowed["headers"]["Access-Control-Allow-Origin"] == "https://site.example"


def test_a_named_stage_is_not_part_of_an_http_api_path(app):
    assert app.resolve(http_event("POST", "/prod/races/r1", stage="prod"), None)["statusCode"] == 201


@pytest.mark.parametrize("method, path", [("GET", "/races/r1"), ("POST", "/races/r1/extra"), ("POST", "/races/a/b")])
def test_another_method_or_path_is_the_not_found_handlers(app, method, path):
    response = app.resolve(rest_event(method, path), None)
    assert (response["statusCode"], json.loads(response["body"])) == (404, {"message": "no such route"})


def test_an_exception_with_a_handler_becomes_its_response(app):
    response = app.resolve(rest_event("POST", "/races/r9", query={"refuse": "yes"}), None)
    assert (response["statusCode"], json.loads(response["body"])) == (409, {"message": "refused r9"})


def test_an_exception_without_a_handler_propagates():
    app = Resolver()

    @app.route("/races/{raceId}", method="POST")
    def broken(raceId: str):
        raise KeyError(raceId)

    with pytest.raises(KeyError):
        app.resolve(rest_event("POST", "/races/r1"), None)
