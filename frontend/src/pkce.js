// OAuth 2.0 authorization code with PKCE (RFC 7636, method S256), the parts that need no page: a
// random code verifier and state, the verifier's challenge, the authorize URL, and what a callback
// URL says. Runs in a browser and in Node (tests/integration/test_auth_js.py).

// Bytes as base64url without padding (RFC 4648 §5), as PKCE and JWTs write them.
export function base64url(bytes) {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// 32 random bytes as base64url: a 43-character verifier (RFC 7636 §4.1: 43–128 unreserved characters)
// or state, from the platform's cryptographic random source.
export function randomToken(bytes = 32) {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

// code_challenge = BASE64URL(SHA256(ASCII(code_verifier))) (RFC 7636 §4.2).
export async function challengeFor(verifier) {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

// auth: /config.json's `auth` ({domain, clientId, scopes}); redirectUri: the site's origin + "/".
export function authorizeUrl(auth, { state, challenge, redirectUri }) {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: auth.clientId,
    redirect_uri: redirectUri,
    state,
    scope: (auth.scopes || ["openid", "email", "profile"]).join(" "),
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  return `${auth.domain}/oauth2/authorize?${query}`;
}

export function logoutUrl(auth, logoutUri) {
  return `${auth.domain}/logout?${new URLSearchParams({ client_id: auth.clientId, logout_uri: logoutUri })}`;
}

// What the authorization server's redirect put in the query (`location.search`): {code, state} after a
// sign-in, {error, description, state} after a refusal, null when the URL is no callback.
export function callbackParams(search) {
  const query = new URLSearchParams(search);
  const state = query.get("state");
  if (query.get("code") && state) return { code: query.get("code"), state };
  if (query.get("error")) return { error: query.get("error"), description: query.get("error_description") || "", state };
  return null;
}

// The page to come back to after signing in: the hash the user started from when it is one of the
// site's routes ("#/races/r1"), else home. Never anything but a hash: a return address that could
// point off the site would make the callback an open redirect.
export function returnHash(hash) {
  return typeof hash === "string" && /^#\/[^\s]*$/.test(hash) ? hash : "#/";
}

// The URL the callback is replaced with: the site's root and the page the user started from, with
// the code and state gone from the address bar and the history.
export const landingUrl = (hash) => `/${returnHash(hash)}`;
