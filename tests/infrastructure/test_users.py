"""The user pool as deployed, and the local stand-in's likeness to it: self sign-up with a verified
email, managed login on a user pool domain, a code-flow-only client for the site, admin tokens that
need TOTP (the pre-token-generation trigger, allowed one read of the pool)."""

from __future__ import annotations

import json

from local import userpool
from stacks.functions import logical_id
from stacks.settings import TOKEN_GROUPS

from .conftest import of_type


def the(resources: dict, kind: str) -> tuple[str, dict]:
    [(logical, resource)] = of_type(resources, kind).items()
    return logical, resource["Properties"]


def test_racers_sign_themselves_up_with_a_verified_email_and_the_stand_ins_password_policy(resources):
    _, pool = the(resources, "AWS::Cognito::UserPool")
    assert pool["AdminCreateUserConfig"]["AllowAdminCreateUserOnly"] is False
    assert pool["AutoVerifiedAttributes"] == ["email"] and pool["UsernameAttributes"] == ["email"]
    policy = pool["Policies"]["PasswordPolicy"]
    assert policy["MinimumLength"] == 12 and policy["TemporaryPasswordValidityDays"] == 3
    assert all(policy[rule] for rule in ("RequireLowercase", "RequireUppercase", "RequireNumbers", "RequireSymbols"))
    # The stand-in lists the deployed pool's rules on its pages: the length, then each kind required
    labels = [rule.label for rule in userpool.PASSWORD_RULES]
    assert labels[0] == f"At least {policy['MinimumLength']} characters" and len(labels) == 5
    # and refuses a password a character short, or lacking any one kind of character the pool requires
    long_enough = "Long-enough-pw1"
    assert len(long_enough) >= policy["MinimumLength"] and userpool.password_problem(long_enough) is None
    assert userpool.password_problem("Lo-" + "n" * (policy["MinimumLength"] - 5) + "1") == (
        "Password did not conform with policy: Password not long enough")
    for lacking, kind in (("LONG-ENOUGH-PW1", "lowercase"), ("long-enough-pw1", "uppercase"),
                          ("Long-enough-pw", "numeric"), ("Longenoughpw12", "symbol")):
        assert userpool.password_problem(lacking) == f"Password did not conform with policy: Password must have {kind} characters"


def test_forgotten_passwords_come_back_by_email_without_telling_who_has_an_account(resources):
    # The stand-in's ForgotPassword sends to a verified email and answers the same for anyone: the pool
    # recovers by email only, and the site's client prevents user existence errors
    _, pool = the(resources, "AWS::Cognito::UserPool")
    _, client = the(resources, "AWS::Cognito::UserPoolClient")
    assert pool["AccountRecoverySetting"] == {"RecoveryMechanisms": [{"Name": "verified_email", "Priority": 1}]}
    assert client["PreventUserExistenceErrors"] == "ENABLED"


def test_a_second_factor_is_optional_for_all_and_tokens_pass_the_admin_trigger(resources):
    _, pool = the(resources, "AWS::Cognito::UserPool")
    assert pool["MfaConfiguration"] == "OPTIONAL" and pool["EnabledMfas"] == ["SOFTWARE_TOKEN_MFA"]
    # Version 2: the group override reaches the access token the API's authorizer reads
    assert pool["LambdaConfig"]["PreTokenGenerationConfig"] == {
        "LambdaArn": {"Fn::GetAtt": [logical_id(TOKEN_GROUPS), "Arn"]}, "LambdaVersion": "V2_0"}


def test_the_trigger_may_read_users_of_this_pool_and_nothing_else(resources):
    pool, _ = the(resources, "AWS::Cognito::UserPool")
    grants = [statement for policy in of_type(resources, "AWS::IAM::Policy").values()
              for statement in policy["Properties"]["PolicyDocument"]["Statement"]
              if "cognito-idp" in json.dumps(statement["Action"])]
    assert grants == [{"Action": "cognito-idp:AdminGetUser", "Effect": "Allow",
                       "Resource": {"Fn::GetAtt": [pool, "Arn"]}}]


def test_managed_login_is_served_on_a_user_pool_domain_with_cognitos_style(resources):
    pool, _ = the(resources, "AWS::Cognito::UserPool")
    _, domain = the(resources, "AWS::Cognito::UserPoolDomain")
    assert domain["UserPoolId"] == {"Ref": pool} and domain["ManagedLoginVersion"] == 2
    _, branding = the(resources, "AWS::Cognito::ManagedLoginBranding")
    assert branding["UseCognitoProvidedValues"] is True


def test_the_sites_client_uses_the_code_flow_only_and_returns_to_the_site(resources):
    _, client = the(resources, "AWS::Cognito::UserPoolClient")
    distribution, _ = the(resources, "AWS::CloudFront::Distribution")
    site = {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [distribution, "DomainName"]}, "/"]]}
    assert client["AllowedOAuthFlowsUserPoolClient"] is True and client["AllowedOAuthFlows"] == ["code"]
    assert client["CallbackURLs"] == [site] and client["LogoutURLs"] == [site]
    assert "GenerateSecret" not in client or client["GenerateSecret"] is False
    assert client["SupportedIdentityProviders"] == ["COGNITO"] and client["EnableTokenRevocation"] is True
    assert sorted(client["AllowedOAuthScopes"]) == sorted(userpool.SCOPES)


def test_the_stand_in_issues_tokens_that_live_as_long_as_the_deployed_clients(resources):
    _, client = the(resources, "AWS::Cognito::UserPoolClient")
    units = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}
    validity = client["TokenValidityUnits"]
    assert client["AccessTokenValidity"] * units[validity["AccessToken"]] == userpool.ACCESS_SECONDS
    assert client["IdTokenValidity"] * units[validity["IdToken"]] == userpool.ACCESS_SECONDS
    assert client["RefreshTokenValidity"] * units[validity["RefreshToken"]] == userpool.REFRESH_SECONDS


def test_the_admin_group_exists(resources):
    _, group = the(resources, "AWS::Cognito::UserPoolGroup")
    assert group["GroupName"] == "admin"
