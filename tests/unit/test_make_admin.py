"""`make admin EMAIL=...` (tools/make_admin.py): where it finds the user pool, the two calls it makes,
what it says when it cannot, and what it tells the new admin to do next. No network: botocore's
Stubber answers for CloudFormation and Cognito, and a function for the site's /config.json. (Against
the local user pool stand-in over HTTP: tests/integration.)"""

import importlib.util
import io
import json
import sys
import tempfile
import urllib.error
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("make_admin", ROOT / "tools" / "make_admin.py")
make_admin = importlib.util.module_from_spec(spec)
sys.modules["make_admin"] = make_admin  # its dataclass looks its module up
spec.loader.exec_module(make_admin)

EMAIL = "ops@example.org"
POOL = "eu-west-1_AbC123"
SITE_URL = "https://d111111abcdef8.cloudfront.net/"
LOCAL = "http://127.0.0.1:3000"
LOCAL_CONFIG = {"events": None, "auth": {"domain": "http://127.0.0.1:4002", "clientId": "alleycatlocalclient",
                                         "idpUrl": "http://127.0.0.1:4002/", "userPoolId": "us-east-1_alleycatlocal"}}


class Session:
    """A boto3 session whose clients are stubbed (their Stubbers in ``stubs``)."""

    def __init__(self, credentials=True, region="eu-west-1"):
        self._real = boto3.session.Session(aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret",
                                           region_name=region or "us-east-1")
        self._credentials, self.region_name = credentials, region
        self.stubs: dict[str, Stubber] = {}
        self.regions: dict[str, str] = {}

    def get_credentials(self):
        return self._real.get_credentials() if self._credentials else None

    def client(self, name, region_name=None):
        if name not in self.stubs:
            self.regions[name] = region_name or self.region_name
            self.stubs[name] = Stubber(self._real.client(name, region_name=self.regions[name]))
            self.stubs[name].activate()
        return self.stubs[name].client

    def stub(self, name):
        self.client(name)
        return self.stubs[name]


def run(*argv, session=None, fetch=None):
    out = io.StringIO()

    def no_site(url):
        raise AssertionError(f"fetched {url}")

    status = make_admin.main(list(argv), session=session or Session(), fetch=fetch or no_site, out=out)
    return status, out.getvalue()


def stack_answers(session, outputs=None, status="CREATE_COMPLETE"):
    outputs = {"UserPoolId": POOL, "SiteUrl": SITE_URL} if outputs is None else outputs
    session.stub("cloudformation").add_response("describe_stacks", {"Stacks": [{
        "StackName": "Alleycat", "CreationTime": "2026-11-25T00:00:00Z", "StackStatus": status,
        "Outputs": [{"OutputKey": key, "OutputValue": value} for key, value in outputs.items()]}]},
        {"StackName": "Alleycat"})


def creates_and_adds(stubber, pool=POOL, exists=False):
    create = {"UserPoolId": pool, "Username": EMAIL, "DesiredDeliveryMediums": ["EMAIL"],
              "UserAttributes": [{"Name": "email", "Value": EMAIL}, {"Name": "email_verified", "Value": "true"}]}
    if exists:
        stubber.add_client_error("admin_create_user", "UsernameExistsException", "User account already exists",
                                 expected_params=create)
    else:
        stubber.add_response("admin_create_user", {"User": {"Username": "sub-1"}}, create)
    stubber.add_response("admin_add_user_to_group", {}, {"UserPoolId": pool, "Username": EMAIL, "GroupName": "admin"})


# --- the email ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("email", ["", "  ", "ops", "ops@", "@example.org", "ops@example", "o ps@example.org", "a@b@c.org"])
def test_a_missing_or_malformed_email_is_refused_before_any_call(email, capsys):
    # Given an email that is not one / When make admin runs / Then it says so and asks nothing of AWS
    status, out = run(email)
    assert status == 2 and not out
    said = capsys.readouterr().err
    assert "make admin EMAIL=you@example.com" in said
    assert ("which email?" in said) if not email.strip() else ("is not an email address" in said)


# --- AWS: the stack's UserPoolId output ---------------------------------------------------------------

def test_in_aws_it_creates_the_account_adds_it_to_admin_and_says_what_comes_next():
    # Given the deployed stack's outputs and a user pool that has no such account
    session = Session()
    stack_answers(session)
    creates_and_adds(session.stub("cognito-idp"))
    # When make admin runs for the email
    status, out = run(EMAIL, "--stack", "Alleycat", session=session)
    # Then it created the account (Cognito emails the temporary password) and put it in the admin group
    assert status == 0
    for stub in session.stubs.values():
        stub.assert_no_pending_responses()
    assert session.regions["cognito-idp"] == "eu-west-1"  # the pool id's region
    assert f"Created {EMAIL} in user pool {POOL} (AWS region eu-west-1) and added them to the admin group." in out
    assert f"Cognito has emailed {EMAIL} a temporary password" in out
    # And it says what the new admin does next: sign in at the site, a new password, two-step sign-in, again
    steps = out.split("Next, as ")[1]
    assert SITE_URL in steps and "temporary password" in steps
    assert steps.index("new password") < steps.index("two-step sign-in") < steps.index("sign in again")
    assert "account page" in steps


def test_run_again_it_only_adds_the_existing_account_to_the_group_and_says_so():
    # Given an account that exists already (the command was run before)
    session = Session()
    stack_answers(session)
    creates_and_adds(session.stub("cognito-idp"), exists=True)
    # When make admin runs again / Then it succeeds, adding the account to the group, and says nothing was sent
    status, out = run(EMAIL, session=session)
    assert status == 0
    session.stubs["cognito-idp"].assert_no_pending_responses()
    assert f"{EMAIL} already has an account in user pool {POOL}" in out and "No email was sent" in out
    assert "Sign out and in again" in out and "--message-action RESEND" in out


def test_without_credentials_or_region_it_says_what_to_configure(capsys):
    # Given no AWS credentials / Then it says how to give some, and calls nothing
    status, _ = run(EMAIL, session=Session(credentials=False))
    assert status == 1 and "no AWS credentials found" in capsys.readouterr().err
    # Given credentials but no region / Then it asks for the stack's region
    status, _ = run(EMAIL, session=Session(region=None))
    assert status == 1 and "no AWS region: set AWS_REGION" in capsys.readouterr().err


def test_a_stack_that_does_not_exist_is_named_with_its_region(capsys):
    session = Session()
    session.stub("cloudformation").add_client_error(
        "describe_stacks", "ValidationError", "Stack with id Racing does not exist", http_status_code=400)
    status, _ = run(EMAIL, "--stack", "Racing", session=session)
    said = capsys.readouterr().err
    assert status == 1 and "no stack Racing in eu-west-1" in said and "make deploy" in said and "STACK=" in said


def test_a_stack_without_the_output_says_to_finish_deploying(capsys):
    session = Session()
    stack_answers(session, outputs={"ApiUrl": "https://x"}, status="UPDATE_IN_PROGRESS")
    status, _ = run(EMAIL, session=session)
    said = capsys.readouterr().err
    assert status == 1 and "has no UserPoolId output" in said and "UPDATE_IN_PROGRESS" in said


def test_credentials_the_user_pool_refuses_are_said_to_be_the_reason(capsys):
    session = Session()
    stack_answers(session)
    session.stub("cognito-idp").add_client_error("admin_create_user", "AccessDeniedException", "not authorized")
    status, _ = run(EMAIL, session=session)
    said = capsys.readouterr().err
    assert status == 1 and "refused to create ops@example.org with your AWS credentials" in said
    assert "cognito-idp:AdminCreateUser" in said


def test_an_email_cognito_refuses_is_reported_with_its_reason(capsys):
    session = Session()
    stack_answers(session)
    session.stub("cognito-idp").add_client_error("admin_create_user", "InvalidParameterException", "Invalid email address format.")
    status, _ = run(EMAIL, session=session)
    assert status == 1 and "Cognito refused 'ops@example.org': Invalid email address format." in capsys.readouterr().err


# --- SITE: a local stack's /config.json ---------------------------------------------------------------

def test_for_a_local_site_it_reads_config_json_and_calls_the_stand_in_with_the_local_credentials(monkeypatch, tmp_path):
    # Given make local's /config.json, the credentials the stack on its port made, and none in the environment
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / "alleycat-local-3000-credentials.json").write_text(
        json.dumps({"accessKeyId": "AKIASTACKSOWN", "secretAccessKey": "its-secret"}))
    fetched = []

    def fetch(url):
        fetched.append(url)
        return json.dumps(LOCAL_CONFIG).encode()

    pool = make_admin.pool_of_site(LOCAL + "/", fetch)
    # Then the pool is the stand-in's, in the region of its id, on the endpoint config.json names
    assert fetched == [LOCAL + "/config.json"]
    assert pool == make_admin.Pool("us-east-1_alleycatlocal", "us-east-1", site=LOCAL + "/", endpoint="http://127.0.0.1:4002/")
    # And its client signs with the local stack's credentials (the stack's own, or the environment's)
    client = make_admin.user_pool_client(pool, Session(credentials=False))
    credentials = client._request_signer._credentials
    assert client.meta.endpoint_url == "http://127.0.0.1:4002/" and client.meta.region_name == "us-east-1"
    assert (credentials.access_key, credentials.secret_key) == ("AKIASTACKSOWN", "its-secret")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    credentials = make_admin.user_pool_client(pool, Session())._request_signer._credentials
    assert (credentials.access_key, credentials.secret_key) == ("key", "secret")


def test_without_the_stacks_credentials_it_says_where_it_looked(monkeypatch, tmp_path):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    pool = make_admin.Pool("us-east-1_alleycatlocal", "us-east-1", site=LOCAL + "/", endpoint="http://127.0.0.1:4002/")
    with pytest.raises(make_admin.Failure, match="is `make local` running there"):
        make_admin.user_pool_client(pool, Session(credentials=False))


def test_for_a_local_site_it_makes_the_admin_and_says_where_the_password_is(monkeypatch):
    stubbed = Stubber(boto3.session.Session().client("cognito-idp", region_name="us-east-1",
                                                      aws_access_key_id="local", aws_secret_access_key="local"))
    creates_and_adds(stubbed, pool="us-east-1_alleycatlocal")
    stubbed.activate()
    monkeypatch.setattr(make_admin, "user_pool_client", lambda pool, session: stubbed.client)
    status, out = run(EMAIL, "--site", LOCAL, session=Session(credentials=False),
                      fetch=lambda url: json.dumps(LOCAL_CONFIG).encode())
    assert status == 0
    stubbed.assert_no_pending_responses()
    assert f"(the local stack at {LOCAL})" in out and "printed where `make local` runs" in out
    assert f"open {LOCAL} and sign in as {EMAIL}" in out and "RESEND" not in out


def test_a_site_that_does_not_answer_says_to_start_make_local(capsys):
    def refused(url):
        raise urllib.error.URLError(ConnectionRefusedError(111, "Connection refused"))

    status, _ = run(EMAIL, "--site", LOCAL, fetch=refused)
    said = capsys.readouterr().err
    assert status == 1 and f"nothing answers at {LOCAL}" in said and "make local" in said


def test_a_site_without_sign_in_says_so(capsys):
    status, _ = run(EMAIL, "--site", LOCAL, fetch=lambda url: b'{"events": null}')
    assert status == 1 and "names no user pool" in capsys.readouterr().err
    status, _ = run(EMAIL, "--site", LOCAL, fetch=lambda url: b"<html>")
    assert status == 1 and "is not JSON" in capsys.readouterr().err
    status, _ = run(EMAIL, "--site", "127.0.0.1:3000", fetch=lambda url: b"{}")
    assert status == 2 and "is not a site's URL" in capsys.readouterr().err


def test_a_deployed_sites_pool_is_called_at_aws_with_your_credentials():
    # Given a deployed site's config.json (SITE= its URL) / Then the pool is AWS's: no endpoint of its own
    config = {"auth": {"idpUrl": "https://cognito-idp.eu-west-1.amazonaws.com/", "userPoolId": POOL}}
    pool = make_admin.pool_of_site(SITE_URL, lambda url: json.dumps(config).encode())
    assert pool.endpoint is None and pool.region == "eu-west-1"


def test_the_admin_group_is_the_one_the_api_checks():
    from alleycat.edge.http import ADMIN

    assert make_admin.ADMIN_GROUP == ADMIN


def test_the_region_the_cdk_cli_deploys_to_is_the_one_looked_in(monkeypatch):
    # Given AWS_REGION set as the README says (botocore alone reads only AWS_DEFAULT_REGION)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    made, fake = [], Session(region=None)
    monkeypatch.setattr(boto3.session, "Session", lambda **kwargs: made.append(kwargs) or fake)
    # When make admin runs without a session of the test's / Then its session is made for that region
    run_status = make_admin.main([EMAIL], session=None, fetch=lambda url: None, out=io.StringIO())
    assert made == [{"region_name": "eu-west-1"}] and run_status == 1
