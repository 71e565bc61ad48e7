"""The local user pool's lifetimes and rules on a clock the test moves: a code's five minutes, a
token's hour, a refresh token's thirty days, the password policy, the trigger's word on groups."""

from __future__ import annotations

import pytest

from local.auth import s256
from local.userpool import ACCESS_SECONDS, CODE_SECONDS, REFRESH_SECONDS, CognitoError, UserPool, password_problem

VERIFIER = "v" * 64
SITE = "http://127.0.0.1:3000/"


class Clock:
    def __init__(self):
        self.at = 1_800_000_000.0

    def now(self):
        return self.at


@pytest.fixture
def clock():
    return Clock()


def signed_up(pool: UserPool, email="ann@example.com"):
    pool.sign_up(email, "Long-enough-pw1")
    return pool.confirm(email, pool.outbox[-1][1])


def tokens(pool: UserPool, user) -> dict:
    code = pool.code_for(user, SITE, s256(VERIFIER), "openid aws.cognito.signin.user.admin")
    return pool.exchange({"grant_type": "authorization_code", "client_id": pool.client_id, "code": code,
                          "redirect_uri": SITE, "code_verifier": VERIFIER})


def test_a_code_expires_after_five_minutes(clock):
    pool = UserPool(clock)
    code = pool.code_for(signed_up(pool), SITE, s256(VERIFIER), "openid")
    clock.at += CODE_SECONDS
    assert pool.exchange({"grant_type": "authorization_code", "client_id": pool.client_id, "code": code,
                          "redirect_uri": SITE, "code_verifier": VERIFIER}) == {"error": "invalid_grant"}


def test_the_authorizer_refuses_an_access_token_after_its_hour_and_a_refresh_gives_a_new_one(clock):
    pool = UserPool(clock)
    first = tokens(pool, signed_up(pool))
    assert pool.authorize(first["access_token"])["sub"]
    clock.at += ACCESS_SECONDS
    assert pool.authorize(first["access_token"]) is None
    refreshed = pool.exchange({"grant_type": "refresh_token", "client_id": pool.client_id,
                               "refresh_token": first["refresh_token"]})
    assert pool.authorize(refreshed["access_token"])["sub"] == pool.find("ann@example.com").sub


def test_a_refresh_token_lasts_thirty_days(clock):
    pool = UserPool(clock)
    first = tokens(pool, signed_up(pool))
    refresh = {"grant_type": "refresh_token", "client_id": pool.client_id, "refresh_token": first["refresh_token"]}
    clock.at += REFRESH_SECONDS - 1
    assert "access_token" in pool.exchange(refresh)
    clock.at += 1
    assert pool.exchange(refresh) == {"error": "invalid_grant"}


def test_another_clients_or_pools_tokens_are_not_accepted(clock):
    pool, other = UserPool(clock), UserPool(clock, client_id="someone-else")
    assert pool.authorize(other.tool_token("ann", [])) is None
    assert pool.exchange({"grant_type": "refresh_token", "client_id": "someone-else", "refresh_token": "x"}) == {
        "error": "invalid_client"}


def test_the_password_policy_names_what_is_missing():
    assert password_problem("Long-enough-pw1") is None
    assert "a symbol" in password_problem("Longenoughpw12") and "a number" not in password_problem("Longenoughpw12")
    assert "at least 12 characters" in password_problem("Sh0rt-pw")


def test_an_unconfirmed_user_cannot_sign_in_and_a_wrong_code_does_not_confirm(clock):
    pool = UserPool(clock)
    pool.sign_up("bo@example.com", "Long-enough-pw1")
    with pytest.raises(CognitoError, match="not confirmed"):
        pool.authenticate("bo@example.com", "Long-enough-pw1")
    with pytest.raises(CognitoError) as wrong:
        pool.confirm("bo@example.com", "not-it")
    assert wrong.value.kind == "CodeMismatchException"
    with pytest.raises(CognitoError) as taken:
        pool.sign_up("BO@example.com", "Long-enough-pw1")
    assert taken.value.kind == "UsernameExistsException"


def test_the_trigger_decides_the_groups_a_token_carries(clock):
    seen = []

    def trigger(event):
        seen.append(event)
        event["response"]["claimsAndScopeOverrideDetails"] = {"groupOverrideDetails": {"groupsToOverride": []}}
        return event

    pool = UserPool(clock, pre_token=trigger)
    user = signed_up(pool)
    pool.add_to_group(user.email, "admin")
    issued = tokens(pool, user)
    assert "cognito:groups" not in pool.authorize(issued["access_token"])
    assert (seen[0]["version"], seen[0]["triggerSource"]) == ("2", "TokenGeneration_HostedAuth")
    assert seen[0]["request"]["groupConfiguration"]["groupsToOverride"] == ["admin"]
