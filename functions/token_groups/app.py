"""Cognito's pre-token-generation trigger (event version 2: the override reaches the ID and the
access token): a token carries ``admin`` only for a user who has TOTP enabled.

Enabling TOTP takes a code from the authenticator, and Cognito then asks for one at every sign-in,
so a token with ``admin`` comes from a password and a second factor (docs/signin.md). Racers need
no second factor: their tokens pass through as Cognito made them, without a call.
"""

import logging

from alleycat.edge.contract import ADMIN_GROUP

TOTP = "SOFTWARE_TOKEN_MFA"
LOG = logging.getLogger(__name__)  # Lambda's JSON log format; no Powertools on every sign-in's path
_users = None  # the user pool API's client, made the first time an admin signs in


def handler(event, context):
    configuration = event["request"]["groupConfiguration"]
    groups = configuration.get("groupsToOverride") or []
    if ADMIN_GROUP in groups and not has_totp(event["userPoolId"], event["userName"]):
        LOG.warning("admin group left out of a token: the user has not enabled TOTP", extra={"user": event["userName"]})
        event["response"]["claimsAndScopeOverrideDetails"] = {"groupOverrideDetails": {
            **configuration, "groupsToOverride": [group for group in groups if group != ADMIN_GROUP]}}
    return event


def has_totp(pool_id: str, username: str) -> bool:
    global _users
    if _users is None:
        import boto3  # only admins' sign-ins pay for it

        _users = boto3.client("cognito-idp")
    user = _users.admin_get_user(UserPoolId=pool_id, Username=username)
    return TOTP in (user.get("UserMFASettingList") or [])
