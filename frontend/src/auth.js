// Who is signed in, in this browser: sign-in through the user pool's managed login (OAuth 2.0
// authorization code with PKCE, S256), the tokens kept fresh with the refresh token, sign-out.
// Where sign-in lives comes from /config.json's `auth` ({domain, clientId, scopes, idpUrl}); a site
// without it is read-only and says so when someone tries to sign in.
//
// - The code verifier and state live in sessionStorage (this tab) from the redirect to the callback
//   only, with the page (hash) the user started from; the callback's URL is replaced by that page.
// - The tokens live in localStorage, so every tab of the site shares one session (a tab that signs
//   out, or refreshes, tells the others through the storage event).
// - The access token is refreshed REFRESH_BEFORE_MS before it expires (a timer), before a write
//   when it expires within WRITE_MARGIN_MS, and once after a 401: an hour-long ride never stops for
//   a token. A refresh the user pool refuses (invalid_grant: the refresh token expired or was
//   revoked) signs the user out with a notice; one that gets no answer (offline, no answer within
//   TOKEN_TIMEOUT_MS, /config.json not to be had) is tried again after RETRY_MS. A refresh whose
//   session left storage meanwhile (another tab signed out) keeps nothing: storage is the truth.
import { siteConfig } from "./push.js";
import { authorizeUrl, callbackParams, challengeFor, landingUrl, logoutUrl, randomToken, returnHash } from "./pkce.js";
import {
  identityOf, needsRefresh, parseSession, refreshDelay, refreshOutcome, RETRY_MS, sessionFrom, TOKEN_TIMEOUT_MS,
} from "./session.js";

const SESSION_KEY = "alleycat.session"; // localStorage: {accessToken, idToken, refreshToken, expiresAt}
const SIGNIN_KEY = "alleycat.signin"; // sessionStorage, until the callback: {state, verifier, hash}
const NAME_KEY = "alleycat.name"; // localStorage: {racerId, name} — the racer's display name, for the header

const redirectUri = () => `${location.origin}/`;

let session = null;
let identity = null;
let name = null;
let notice = null;
let timer = null;
let refreshing = null;
const listeners = new Set();

function notify() {
  for (const listener of listeners) listener();
}

function read() {
  session = parseSession(localStorage.getItem(SESSION_KEY));
  identity = identityOf(session);
  if (!identity) session = null;
  try {
    const kept = JSON.parse(localStorage.getItem(NAME_KEY));
    name = identity && kept?.racerId === identity.racerId ? kept.name : null;
  } catch {
    name = null;
  }
}

function schedule() {
  clearTimeout(timer);
  timer = session ? setTimeout(refresh, refreshDelay(session, Date.now())) : null;
}

// What storage holds now (another tab refreshed, signed in or signed out): its tokens are ours.
function adopt() {
  const before = identity?.racerId;
  read();
  schedule();
  if (identity?.racerId !== before) notify();
}

function keep(next) {
  const before = identity?.racerId;
  localStorage.setItem(SESSION_KEY, JSON.stringify(next));
  read();
  if (identity?.racerId !== before) notice = null;
  schedule();
  notify();
}

// Signed out here (and in every tab): the tokens are gone; `message`, if any, says why.
function end(message = null) {
  localStorage.removeItem(SESSION_KEY);
  localStorage.removeItem(NAME_KEY);
  session = identity = name = null;
  notice = message;
  schedule();
  notify();
}

async function settings() {
  const { auth: found } = await siteConfig();
  return found?.domain && found?.clientId ? found : null;
}

// The token endpoint's answer ({status, ok, body}); throws when there is none, an AbortError when
// none came within TOKEN_TIMEOUT_MS (a stalled endpoint never holds up the page).
async function tokenRequest(config, fields) {
  const abort = new AbortController();
  const giveUp = setTimeout(() => abort.abort(), TOKEN_TIMEOUT_MS);
  try {
    const response = await fetch(`${config.domain}/oauth2/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: config.clientId, ...fields }),
      signal: abort.signal,
    });
    const body = await response.json().catch(() => ({}));
    // A body that stalled is no answer either (json() then gave up, and the catch hid why).
    if (abort.signal.aborted) throw new DOMException("the token endpoint did not answer in time", "AbortError");
    return { status: response.status, ok: response.ok, body };
  } finally {
    clearTimeout(giveUp);
  }
}

async function refreshNow() {
  const current = session;
  if (!current) return false;
  const config = await settings();
  let answer = null; // none: no config to be had (yet), offline, or no answer in time
  if (config) {
    try {
      answer = await tokenRequest(config, { grant_type: "refresh_token", refresh_token: current.refreshToken });
    } catch {
      answer = null;
    }
  }
  // Storage, not this tab's copy: another tab's sign-out may have removed the session while the
  // request was out, before its storage event reached this tab.
  const outcome = refreshOutcome(current, parseSession(localStorage.getItem(SESSION_KEY)), answer, Date.now());
  if (outcome.action === "keep") {
    keep(outcome.session);
    return true;
  }
  if (outcome.action === "adopt") {
    adopt();
    return Boolean(session);
  }
  if (outcome.action === "signed-out") {
    end("Your sign-in has ended (it expired, or you signed out elsewhere). "
      + "Sign in again to save changes; races are still open to watch.");
    return false;
  }
  clearTimeout(timer);
  timer = setTimeout(refresh, RETRY_MS);
  return false;
}

// One refresh at a time: a timer, a write and a 401 that want one together share it.
function refresh() {
  refreshing ||= refreshNow().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

async function finishSignIn(callback) {
  let pending = null;
  try {
    pending = JSON.parse(sessionStorage.getItem(SIGNIN_KEY));
  } catch {
    pending = null;
  }
  sessionStorage.removeItem(SIGNIN_KEY);
  // The code and state leave the address bar (and the history) at once: a reload never sends them again.
  history.replaceState(null, "", landingUrl(pending?.hash));
  if (!pending || pending.state !== callback.state) {
    notice = "Sign-in did not complete here (it was started in another tab, or already finished). Please sign in again.";
    return;
  }
  if (callback.error) {
    notice = callback.error === "access_denied" ? "Sign-in was cancelled."
      : `Sign-in did not complete (${callback.description || callback.error}). Please try again.`;
    return;
  }
  const config = await settings();
  if (!config) {
    notice = "Sign-in is not available on this site.";
    return;
  }
  try {
    const answer = await tokenRequest(config, {
      grant_type: "authorization_code", code: callback.code, redirect_uri: redirectUri(), code_verifier: pending.verifier,
    });
    const next = answer.ok && sessionFrom(answer.body, Date.now());
    if (!next || !identityOf(next)) throw new Error(answer.body.error || `the user pool answered ${answer.status}`);
    keep(next);
  } catch (error) {
    notice = error.name === "AbortError"
      ? "Sign-in did not complete (the sign-in service did not answer). Please try again."
      : `Sign-in did not complete (${error.message}). Please try again.`;
  }
}

export const auth = {
  // {racerId, email, username, groups, admin} of the signed-in user, or null.
  get identity() {
    return identity;
  },
  // The racer's display name (as the API has it), once known.
  get name() {
    return name;
  },
  // A message for the user about their sign-in (signed out, sign-in failed), or null.
  get notice() {
    return notice;
  },

  // Called on every change of the above; returns the function that stops it.
  onChange(listener) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },

  setName(racerId, value) {
    if (!identity || identity.racerId !== racerId || name === value) return;
    name = value;
    localStorage.setItem(NAME_KEY, JSON.stringify({ racerId, name }));
    notify();
  },

  dismiss() {
    notice = null;
    notify();
  },

  // Before the first page is drawn: the session this browser keeps, and the callback of a sign-in
  // (its URL then becomes the page the user started from).
  async start() {
    read();
    window.addEventListener("storage", (event) => {
      if (event.key === NAME_KEY) {
        read();
        notify();
      } else if (event.key === null || event.key === SESSION_KEY) {
        adopt(); // another tab refreshed (or signed out): its tokens are ours
      }
    });
    // A tab in the background may have had its timers held back: catch up when it shows again.
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && session && refreshDelay(session, Date.now()) === 0) refresh();
    });
    const callback = callbackParams(location.search);
    if (callback) await finishSignIn(callback);
    schedule();
    notify();
  },

  async available() {
    return Boolean(await settings());
  },

  // To the user pool's sign-in (and sign-up) page; back on the page the user is on now.
  async signIn() {
    const config = await settings();
    if (!config) {
      notice = "Sign-in is not available on this site right now. Races and boards are open to everyone without it.";
      notify();
      return;
    }
    try {
      const verifier = randomToken();
      const state = randomToken(16);
      const challenge = await challengeFor(verifier);
      sessionStorage.setItem(SIGNIN_KEY, JSON.stringify({ state, verifier, hash: returnHash(location.hash) }));
      location.assign(authorizeUrl(config, { state, challenge, redirectUri: redirectUri() }));
    } catch {
      // crypto.subtle exists only on a secure page: https, or http on localhost / 127.0.0.1 (the
      // local user pool takes http://127.0.0.1:<port>/ and http://localhost:<port>/ back)
      notice = "Sign-in needs a secure page: open the site over https, or, on a local stack, "
        + "at the address “make local” prints (http://127.0.0.1:…/).";
      notify();
    }
  },

  // Revokes the refresh token (and with it the access tokens it gave), forgets the tokens in every
  // tab, and ends the user pool's own session (its cookie) through its logout page.
  async signOut() {
    const config = await settings();
    const current = session;
    end();
    if (!config) return;
    if (current) {
      const abort = new AbortController();
      const giveUp = setTimeout(() => abort.abort(), 5000);
      await fetch(`${config.domain}/oauth2/revoke`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: current.refreshToken, client_id: config.clientId }),
        signal: abort.signal,
      }).catch(() => {}); // signed out here whatever the answer: the tokens are gone from this browser
      clearTimeout(giveUp);
    }
    location.assign(logoutUrl(config, redirectUri()));
  },

  // An access token good for at least WRITE_MARGIN_MS (refreshed first if need be), or null when
  // nobody is signed in.
  async accessToken() {
    if (session && needsRefresh(session, Date.now())) await refresh();
    return session?.accessToken ?? null;
  },

  // After a 401: refreshes once; whether there is a new token to try with.
  refresh,
};

// The signed-in racer's id (their rows on race boards are marked), or null.
export const myRacerId = () => identity?.racerId ?? null;
