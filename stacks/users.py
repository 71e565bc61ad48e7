"""Who may write: a Cognito user pool racers sign themselves up to, its managed login on a user pool
domain, the site's app client (OAuth 2.0 authorization code with PKCE, no secret, no implicit
grant) and the ``admin`` group, whose tokens need a second factor (``functions/token_groups``).

``local/userpool.py`` stands in for all of it on `make local`, with the same password policy, token
lifetimes and scopes (tests/infrastructure/test_users.py compares them). docs/security.md says why.
"""

from __future__ import annotations

import jsii
from aws_cdk import Duration, IStableStringProducer, Lazy, RemovalPolicy, Stack
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_iam as iam
from constructs import Construct

from alleycat.edge.contract import ADMIN_GROUP

from . import acknowledge
from .functions import Functions
from .settings import (
    PASSWORD_MIN_LENGTH,
    PASSWORD_REQUIRES,
    TEMPORARY_PASSWORD_DAYS,
    TOKEN_GROUPS,
    TOKEN_GROUPS_CONCURRENCY,
    memory_mb,
)

ACCESS_TOKEN_VALIDITY = Duration.hours(1)  # a ride refreshes it (frontend/src/auth.js)
REFRESH_TOKEN_VALIDITY = Duration.days(30)
SCOPES = (cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE,
          cognito.OAuthScope.COGNITO_ADMIN)  # COGNITO_ADMIN: a user sets up their own TOTP (the account page)


@jsii.implements(IStableStringProducer)
class _Later:
    """A value known later in the stack's construction: the site's URL, made after the API the
    client guards (the site's CloudFront serves the API)."""

    def __init__(self) -> None:
        self.value: str | None = None

    def produce(self) -> str | None:
        if self.value is None:
            raise ValueError("the site's URL was never given (Users.serve)")
        return self.value


class Users(Construct):
    def __init__(self, scope: Construct, id: str, *, functions: Functions, throwaway: bool = False) -> None:
        super().__init__(scope, id)
        stack = Stack.of(self)
        self.user_pool = cognito.UserPool(
            self, "UserPool",
            self_sign_up_enabled=True,
            sign_in_aliases=cognito.SignInAliases(email=True),
            auto_verify=cognito.AutoVerifiedAttrs(email=True),  # a code by email before the first sign-in
            keep_original=cognito.KeepOriginalAttrs(email=True),  # a new address counts once it is verified
            standard_attributes=cognito.StandardAttributes(email=cognito.StandardAttribute(required=True, mutable=True)),
            password_policy=cognito.PasswordPolicy(
                min_length=PASSWORD_MIN_LENGTH, require_lowercase="lowercase" in PASSWORD_REQUIRES,
                require_uppercase="uppercase" in PASSWORD_REQUIRES, require_digits="numbers" in PASSWORD_REQUIRES,
                require_symbols="symbols" in PASSWORD_REQUIRES,
                temp_password_validity=Duration.days(TEMPORARY_PASSWORD_DAYS)),
            # Optional: racers ride without a second factor; a user who enables TOTP is always asked for
            # it, and only such a user's tokens carry the admin group (the trigger below).
            mfa=cognito.Mfa.OPTIONAL,
            mfa_second_factor=cognito.MfaSecondFactor(otp=True, sms=False),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            feature_plan=cognito.FeaturePlan.ESSENTIALS,  # managed login (the newer pages) and token customization
            deletion_protection=not throwaway,
            removal_policy=RemovalPolicy.DESTROY if throwaway else RemovalPolicy.RETAIN,
        )
        self._token_groups(functions)
        self.domain = self.user_pool.add_domain(
            "Domain", managed_login_version=cognito.ManagedLoginVersion.NEWER_MANAGED_LOGIN,
            # Unique per region across all accounts, as Cognito requires: the stack's name and the account.
            cognito_domain=cognito.CognitoDomainOptions(domain_prefix=f"{stack.stack_name.lower()}-{stack.account}"))
        self._site_url = _Later()
        site_url = Lazy.string(self._site_url)
        self.client = self.user_pool.add_client(
            "AppClient",
            generate_secret=False,  # a browser app: PKCE instead of a secret
            auth_flows=cognito.AuthFlow(user_srp=True),
            o_auth=cognito.OAuthSettings(flows=cognito.OAuthFlows(authorization_code_grant=True),
                                         scopes=list(SCOPES), callback_urls=[site_url], logout_urls=[site_url]),
            supported_identity_providers=[cognito.UserPoolClientIdentityProvider.COGNITO],
            access_token_validity=ACCESS_TOKEN_VALIDITY, id_token_validity=ACCESS_TOKEN_VALIDITY,
            refresh_token_validity=REFRESH_TOKEN_VALIDITY,
            enable_token_revocation=True,  # sign-out revokes the refresh token
            prevent_user_existence_errors=True,
        )
        # The newer managed login shows nothing until the client has a style: Cognito's own.
        cognito.CfnManagedLoginBranding(self, "Branding", user_pool_id=self.user_pool.user_pool_id,
                                        client_id=self.client.user_pool_client_id, use_cognito_provided_values=True)
        cognito.CfnUserPoolGroup(self, "AdminGroup", user_pool_id=self.user_pool.user_pool_id,
                                 group_name=ADMIN_GROUP, description="Alleycat administrators (their tokens need TOTP)")
        acknowledge(self.user_pool, "AwsSolutions-COG8",
                    "Plus (threat protection) is a per-MAU cost for every racer; sign-up abuse is met by email "
                    "verification, throttles and alarms (docs/security.md). Revisit for a public launch.")
        acknowledge(self.user_pool, "AwsSolutions-COG2",
                    "MFA is optional by design: racers ride without it; admin powers need TOTP, which the "
                    "pre-token-generation trigger enforces (docs/security.md).")

    def _token_groups(self, functions: Functions) -> None:
        """The pre-token-generation trigger; it reads a user's MFA settings (AdminGetUser) when an admin
        signs in. The grant is a policy of its own: on the function's role it would make a cycle."""
        self.trigger = functions.add(TOKEN_GROUPS, "Keeps admin in a token only for a user with TOTP", (),
                                     memory_size=memory_mb(TOKEN_GROUPS))
        self.trigger.node.default_child.reserved_concurrent_executions = TOKEN_GROUPS_CONCURRENCY
        # Version 2 (Essentials): its group override reaches the access token, the one the API reads.
        self.user_pool.add_trigger(cognito.UserPoolOperation.PRE_TOKEN_GENERATION_CONFIG, self.trigger,
                                   lambda_version=cognito.LambdaVersion.V2_0)
        self.trigger.role.attach_inline_policy(iam.Policy(self, "ReadMfaSettings", statements=[iam.PolicyStatement(
            actions=["cognito-idp:AdminGetUser"], resources=[self.user_pool.user_pool_arn])]))

    def serve(self, site_url: str) -> None:
        """The site the client signs users in for: its callback and sign-out URL."""
        self._site_url.value = site_url

    @property
    def domain_url(self) -> str:
        """``https://<prefix>.auth.<region>.amazoncognito.com``: managed login and the OAuth 2.0 endpoints."""
        return self.domain.base_url()

    @property
    def api_url(self) -> str:
        """The user pool API's endpoint, where a signed-in user sets up their TOTP."""
        stack = Stack.of(self)
        return f"https://cognito-idp.{stack.region}.{stack.url_suffix}/"

    @property
    def site_config(self) -> dict:
        """``auth`` in the site's ``/config.json`` (the local stack serves the same shape)."""
        return {"domain": self.domain_url, "clientId": self.client.user_pool_client_id,
                "scopes": [scope.scope_name for scope in SCOPES], "idpUrl": self.api_url,
                "userPoolId": self.user_pool.user_pool_id}
