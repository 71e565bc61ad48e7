"""`make admin EMAIL=you@example.com`: make an account of the stack's user pool an admin.

    make admin EMAIL=you@example.com                               # the deployed stack (STACK=, default Alleycat)
    make admin EMAIL=you@example.com SITE=http://127.0.0.1:3000    # the stack `make local` runs

Where the user pool is: in AWS, the stack's ``UserPoolId`` output (CloudFormation DescribeStacks, with
your AWS credentials and region); for SITE, that site's ``/config.json`` (``auth.idpUrl``, the user
pool API's endpoint, and ``auth.userPoolId``), called with the local stack's credentials (made at
its start and left in ``local.auth.credentials_file(port)``, unless ``AWS_ACCESS_KEY_ID`` /
``AWS_SECRET_ACCESS_KEY`` are set: the stand-in checks their SigV4 signature as AWS would and refuses
any others). The region is the pool id's prefix.

What it does: AdminCreateUser (the email as username, verified, so it can sign in at once), which
has Cognito email a temporary password, then AdminAddUserToGroup ``admin``. Run again for the same
email, it finds the account and only adds it to the group: no second email, no password change.
The new admin then signs in with the temporary password, chooses a password, sets up two-step
sign-in on the account page and signs in again: the ``admin`` group reaches a token only once
two-step sign-in is on (docs/signin.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from alleycat.edge.contract import ADMIN_GROUP  # the group the stack makes; its members may do every write

EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")
POOL_ID = re.compile(r"(?P<region>[a-z]{2}(?:-[a-z]+)+-\d+)_\w+")
USAGE = "make admin EMAIL=you@example.com [SITE=http://127.0.0.1:3000] [STACK=Alleycat]"
NO_CREDENTIALS = ("no AWS credentials found. Give this shell the credentials of the account the stack is "
                  "deployed in (aws configure, aws sso login, AWS_PROFILE=..., or AWS_ACCESS_KEY_ID and "
                  "AWS_SECRET_ACCESS_KEY) and run it again.")
NO_REGION = ("no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION) to the stack's region, or "
             "`aws configure set region <region>`, and run it again.")
REFUSED = {"AccessDenied", "AccessDeniedException", "NotAuthorizedException", "UnrecognizedClientException",
           "InvalidClientTokenId", "SignatureDoesNotMatch", "ExpiredToken", "ExpiredTokenException",
           "MissingAuthenticationTokenException", "IncompleteSignature"}


class Failure(Exception):
    """What went wrong, said to the operator; ``status`` is the process's exit status."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Pool:
    id: str
    region: str
    site: str | None  # where the admin signs in
    endpoint: str | None = None  # the user pool API's endpoint when it is not AWS's (the local stand-in)

    @property
    def where(self) -> str:
        return f"the local stack at {self.site}" if self.endpoint else f"AWS region {self.region}"


def checked_email(email: str) -> str:
    email = email.strip()
    if not email:
        raise Failure(f"which email? {USAGE}", status=2)
    if not EMAIL.fullmatch(email):
        raise Failure(f"{email!r} is not an email address: the new admin's own, where Cognito sends "
                      f"the temporary password ({USAGE})", status=2)
    return email


def region_of(pool_id: str) -> str:
    match = POOL_ID.fullmatch(pool_id)
    if not match:
        raise Failure(f"{pool_id!r} is not a user pool id (<region>_<id>, as us-east-1_AbC123)")
    return match["region"]


# --- where the user pool is --------------------------------------------------------------------------

def pool_of_stack(stack: str, session) -> Pool:
    """The pool the deployed stack's ``UserPoolId`` output names."""
    from botocore.exceptions import ClientError, EndpointConnectionError, NoCredentialsError, NoRegionError

    if session.get_credentials() is None:
        raise Failure(NO_CREDENTIALS)
    if not session.region_name:
        raise Failure(NO_REGION)
    try:
        [found] = session.client("cloudformation").describe_stacks(StackName=stack)["Stacks"]
    except NoCredentialsError:
        raise Failure(NO_CREDENTIALS) from None
    except NoRegionError:
        raise Failure(NO_REGION) from None
    except EndpointConnectionError as error:
        raise Failure(f"cannot reach CloudFormation in {session.region_name}: {error}") from None
    except ClientError as error:
        code, message = error.response["Error"].get("Code", ""), error.response["Error"].get("Message", "")
        if code == "ValidationError" and "does not exist" in message:
            raise Failure(f"no stack {stack} in {session.region_name} for these credentials: deploy it with "
                          f"`make deploy` (README: Deploy), or name it (STACK=...) and its region (AWS_REGION=...)") from None
        raise Failure(f"CloudFormation refused to describe stack {stack}: {code}: {message}") from None
    outputs = {output["OutputKey"]: output["OutputValue"] for output in found.get("Outputs", [])}
    if "UserPoolId" not in outputs:
        raise Failure(f"stack {stack} ({found.get('StackStatus', 'status unknown')}) has no UserPoolId output: "
                      f"wait for its deployment to finish, or deploy it again with `make deploy`")
    pool_id = outputs["UserPoolId"]
    return Pool(pool_id, region_of(pool_id), site=outputs.get("SiteUrl"))


def pool_of_site(site: str, fetch: Callable[[str], bytes]) -> Pool:
    """The pool a site's ``/config.json`` names (the local stack's stand-in, or a deployed site's pool)."""
    url = site.rstrip("/") + "/config.json"
    if urlsplit(url).scheme not in ("http", "https"):
        raise Failure(f"SITE={site} is not a site's URL (as http://127.0.0.1:3000)", status=2)
    try:
        config = json.loads(fetch(url))
    except urllib.error.HTTPError as error:
        raise Failure(f"{url} answered {error.code}: is {site} an Alleycat site?") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise Failure(f"nothing answers at {site} ({reason}): start the local stack with `make local` "
                      f"(PORT= for another port) or give SITE= its URL") from None
    except ValueError:
        raise Failure(f"{url} is not JSON: is {site} an Alleycat site?") from None
    auth = config.get("auth") if isinstance(config, dict) else None
    if not auth or not auth.get("idpUrl") or not auth.get("userPoolId"):
        raise Failure(f"{url} names no user pool (auth.idpUrl, auth.userPoolId): the stack at {site} has no sign-in")
    pool_id = auth["userPoolId"]
    aws = (urlsplit(auth["idpUrl"]).hostname or "").endswith(".amazonaws.com")
    return Pool(pool_id, region_of(pool_id), site=site, endpoint=None if aws else auth["idpUrl"])


def user_pool_client(pool: Pool, session):
    """boto3's cognito-idp client for the pool: with your AWS credentials, or the local stack's for the stand-in."""
    if pool.endpoint is None:
        return session.client("cognito-idp", region_name=pool.region)
    import boto3

    key, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
    if not (key and secret):
        key, secret = local_credentials(pool.site or "")
    return boto3.session.Session().client("cognito-idp", region_name=pool.region, endpoint_url=pool.endpoint,
                                          aws_access_key_id=key, aws_secret_access_key=secret)


def local_credentials(site: str) -> tuple[str, str]:
    """The credentials `make local` serving ``site`` made at its start (it leaves them in a file of its port)."""
    from local.auth import credentials_file

    path = credentials_file(urlsplit(site).port or 80)
    try:
        with open(path) as file:
            saved = json.load(file)
        return saved["accessKeyId"], saved["secretAccessKey"]
    except (OSError, ValueError, KeyError):
        raise Failure(f"no credentials of the local stack at {site} ({path}): is `make local` running there? "
                      "(or give AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)") from None


# --- the two calls -----------------------------------------------------------------------------------

def make_admin(email: str, pool: Pool, client) -> bool:
    """Creates the account (True) or finds it (False), then puts it in the admin group."""
    from botocore.exceptions import ClientError

    created = True
    try:
        client.admin_create_user(
            UserPoolId=pool.id, Username=email,
            UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}],
            DesiredDeliveryMediums=["EMAIL"])
    except ClientError as error:
        if error.response["Error"].get("Code") != "UsernameExistsException":
            raise Failure(refusal(error, "create", email, pool)) from None
        created = False
    try:
        client.admin_add_user_to_group(UserPoolId=pool.id, Username=email, GroupName=ADMIN_GROUP)
    except ClientError as error:
        raise Failure(refusal(error, "add to the admin group", email, pool)) from None
    return created


def refusal(error, doing: str, email: str, pool: Pool) -> str:
    code, message = error.response["Error"].get("Code", ""), error.response["Error"].get("Message", "")
    if code in REFUSED:
        who = "the local stack's credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY as `make local` has them)" \
            if pool.endpoint else "your AWS credentials (they need cognito-idp:AdminCreateUser and AdminAddUserToGroup)"
        return f"the user pool refused to {doing} {email} with {who}: {code}: {message}"
    if code == "ResourceNotFoundException":
        return f"cannot {doing} {email}: {message} (user pool {pool.id}, {pool.where}); deploy the stack again?"
    if code == "InvalidParameterException":
        return f"Cognito refused {email!r}: {message}"
    if code == "CodeDeliveryFailureException":
        return (f"Cognito could not email {email}: {message}. Its default sender has a small daily quota "
                f"(README: Deploy, email); run this again later, or send with Amazon SES")
    return f"cannot {doing} {email}: {code}: {message}"


def report(email: str, pool: Pool, created: bool) -> str:
    site = pool.site or "the stack's SiteUrl"
    if created:
        emailed = ("The local user pool stand-in sends no email: the temporary password is printed where "
                   "`make local` runs (and kept in its outbox)." if pool.endpoint else
                   f"Cognito has emailed {email} a temporary password (from no-reply@verificationemail.com).")
        done = f"Created {email} in user pool {pool.id} ({pool.where}) and added them to the {ADMIN_GROUP} group.\n{emailed}"
        first = f"open {site} and sign in as {email} with the temporary password from that email"
        again = ""
    else:
        done = (f"{email} already has an account in user pool {pool.id} ({pool.where}): added them to the "
                f"{ADMIN_GROUP} group. No email was sent and their password is unchanged.")
        first = (f"open {site} and sign in as {email} (a never-used account: with the temporary password "
                 f"first emailed, if it has not expired)")
        again = ("\nAlready signed in? Sign out and in again: the group reaches a token only once two-step "
                 "sign-in is on, and an open session only at its next refresh.")
        if not pool.endpoint:
            again += (f"\nTemporary password expired? Send a new one: aws cognito-idp admin-create-user "
                      f"--region {pool.region} --user-pool-id {pool.id} --username {email} --message-action RESEND")
    steps = [first, "choose a new password when asked",
             "open the account page and set up two-step sign-in (an authenticator app's code)",
             "sign out and sign in again, now with a code from the app: admin writes need two-step sign-in on"]
    return "\n".join([done, "", f"Next, as {email}:", *(f"  {n}. {step}" for n, step in enumerate(steps, 1))]) + again


# --- main ----------------------------------------------------------------------------------------------

def fetch_url(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read()


def main(argv: list[str] | None = None, session=None, fetch: Callable[[str], bytes] = fetch_url, out=sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="make admin", description=__doc__.split("\n\n")[0], usage=USAGE)
    parser.add_argument("email", nargs="?", default="", help="the new admin's email (EMAIL=)")
    parser.add_argument("--stack", default="Alleycat", help="the deployed stack's name (STACK=)")
    parser.add_argument("--site", default="", help="a site whose /config.json names the user pool (SITE=): the local stack")
    arguments = parser.parse_args(argv)
    try:
        email = checked_email(arguments.email)
        from botocore.exceptions import BotoCoreError, EndpointConnectionError, NoCredentialsError, ProfileNotFound

        try:
            if session is None:
                import boto3

                # The CDK CLI deploys to $AWS_REGION when it is set; botocore reads only AWS_DEFAULT_REGION.
                session = boto3.session.Session(region_name=os.environ.get("AWS_REGION") or None)
            pool = pool_of_site(arguments.site, fetch) if arguments.site else pool_of_stack(arguments.stack, session)
            created = make_admin(email, pool, user_pool_client(pool, session))
        except NoCredentialsError:
            raise Failure(NO_CREDENTIALS) from None
        except ProfileNotFound as error:
            raise Failure(f"{error}: AWS_PROFILE names no profile of ~/.aws/config") from None
        except EndpointConnectionError as error:
            still = ": is `make local` still running?" if arguments.site else ""
            raise Failure(f"cannot reach the user pool API ({error}){still}") from None
        except BotoCoreError as error:  # the SDK's own (configuration, partial credentials, ...)
            raise Failure(f"the AWS SDK stopped: {error}") from None
    except Failure as failure:
        print(f"make admin: {failure}", file=sys.stderr)
        return failure.status
    print(report(email, pool, created), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
