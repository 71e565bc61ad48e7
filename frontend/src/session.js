// A signed-in session as this browser keeps it, and what it says, with no page: the tokens from the
// user pool's token endpoint, when to refresh them, and who they name. Runs in a browser and in Node
// (tests/integration/test_auth_js.py).
//
// The frontend only reads a token's payload, never verifies it: the API does.

export const REFRESH_BEFORE_MS = 5 * 60_000; // the timer refreshes this long before the access token expires
export const WRITE_MARGIN_MS = 60_000; // a write first refreshes a token that expires within this
export const RETRY_MS = 30_000; // a refresh that got no answer (offline) is tried again after this
export const TOKEN_TIMEOUT_MS = 10_000; // a token request unanswered this long is given up (no answer)

// A JWT's payload (its middle part: base64url JSON in UTF-8), or null for anything that is not one.
export function jwtPayload(token) {
  const part = typeof token === "string" ? token.split(".")[1] : undefined;
  if (!part || !/^[A-Za-z0-9_-]+$/.test(part)) return null;
  try {
    const base64 = part.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (part.length % 4)) % 4);
    const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    const payload = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return payload && typeof payload === "object" && !Array.isArray(payload) ? payload : null;
  } catch {
    return null;
  }
}

// The session kept after a token response ({access_token, id_token, refresh_token?, expires_in}) that
// arrived at `now` (ms). A refresh's answer has no refresh token: the previous one is kept. The
// access token's expiry is counted from when it arrived (expires_in), not from its `exp`: this
// browser's clock need not agree with the server's.
export function sessionFrom(tokens, now, previous = null) {
  const refreshToken = tokens.refresh_token || previous?.refreshToken;
  if (!tokens.access_token || !tokens.id_token || !refreshToken) return null;
  const lifetime = Number(tokens.expires_in) > 0 ? Number(tokens.expires_in) : 3600;
  return { accessToken: tokens.access_token, idToken: tokens.id_token, refreshToken, expiresAt: now + lifetime * 1000 };
}

// A session read back from storage (JSON text), or null when it is missing or not one.
export function parseSession(text) {
  try {
    const session = JSON.parse(text);
    const valid = session && ["accessToken", "idToken", "refreshToken"].every((key) => typeof session[key] === "string")
      && Number.isFinite(session.expiresAt);
    return valid ? session : null;
  } catch {
    return null;
  }
}

// How long until the timer refreshes the session (ms, 0 = now): REFRESH_BEFORE_MS before its access
// token expires, or at once when that is past (a tab that slept, a page opened after an hour).
export const refreshDelay = (session, now) => Math.max(0, session.expiresAt - REFRESH_BEFORE_MS - now);

// Whether a write must refresh first: the access token expires within `margin` ms.
export const needsRefresh = (session, now, margin = WRITE_MARGIN_MS) => session.expiresAt - now <= margin;

// Who the session names, from its ID token: racerId = `sub` (the racer's id in the API), email,
// groups (`cognito:groups`, absent when none), admin = in group "admin".
export function identityOf(session) {
  const claims = session ? jwtPayload(session.idToken) : null;
  if (!claims || typeof claims.sub !== "string" || !claims.sub) return null;
  const groups = Array.isArray(claims["cognito:groups"]) ? claims["cognito:groups"].map(String) : [];
  return {
    racerId: claims.sub,
    email: typeof claims.email === "string" ? claims.email : "",
    username: claims["cognito:username"] || claims.sub,
    groups,
    admin: groups.includes("admin"),
  };
}

// What an answer of the token endpoint means for a refresh: "signed-out" (the refresh token is no
// good: invalid_grant, or the client is refused), "retry" (no answer, a 5xx, a throttle).
export function refreshFailure(status, body) {
  if (status === 400 || status === 401) {
    const error = body && body.error;
    if (["invalid_grant", "invalid_client", "unauthorized_client", "invalid_request"].includes(error) || !error) return "signed-out";
  }
  return "retry";
}

// What a refresh of the session `refreshed` does once it is over: `stored` is the session in storage
// now (parseSession of it: null when there is none), `answer` the token endpoint's
// ({status, ok, body}), or null when there was none (offline, timed out, the site's config could not
// be read); `now` when it came (ms).
// - {action: "adopt"}: storage no longer holds the session refreshed (another tab signed out, or
//   signed in as someone else, while the request was out): storage is the truth, whatever the
//   answer; writing the new tokens would bring a signed-out session back.
// - {action: "keep", session}: the new tokens, to be stored.
// - {action: "signed-out"}: the user pool refused the refresh token.
// - {action: "retry"}: no usable answer; tried again after RETRY_MS.
export function refreshOutcome(refreshed, stored, answer, now) {
  if (!stored || stored.refreshToken !== refreshed.refreshToken) return { action: "adopt" };
  const next = answer?.ok ? sessionFrom(answer.body || {}, now, refreshed) : null;
  if (next) return { action: "keep", session: next };
  if (answer && refreshFailure(answer.status, answer.body) === "signed-out") return { action: "signed-out" };
  return { action: "retry" };
}
