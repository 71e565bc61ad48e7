// The Alleycat HTTP API, on the site's own origin: CloudFront in AWS, the local server in `make
// local`. Reads are public (the API's Cache-Control decides how long an answer is reused); writes
// carry the signed-in user's access token (auth.js), refreshed before it expires and once after a
// 401. A failed call throws an ApiError with the API's own message.
import { auth } from "./auth.js";
import { serverClock } from "./serverTime.js";

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function answer(response) {
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, body.message || response.statusText || `HTTP ${response.status}`);
  return body;
}

// fetch, each answer's Date telling the server's clock (serverTime.js; Age: a cache kept the answer).
async function timed(path, options) {
  const sent = Date.now();
  const response = await fetch(path, options);
  const date = response.headers.get("Date");
  if (date) serverClock.observe(sent, Date.now(), date, response.headers.get("Age"));
  return response;
}

async function get(path) {
  return answer(await timed(path, { cache: "no-store" }));
}

const SIGNED_OUT = "You are not signed in (or your sign-in has ended): sign in, then try again.";

// `key`: an Idempotency-Key (the API's routes that take one answer a retry with the first answer);
// `timeoutMs`: a request unanswered this long is given up (it throws, as with no connection).
async function send(method, path, body, key, timeoutMs) {
  const call = (token) => timed(path, {
    method,
    cache: "no-store",
    signal: timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined,
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}`, ...(key ? { "Idempotency-Key": key } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const token = await auth.accessToken();
  if (!token) throw new ApiError(401, SIGNED_OUT);
  let response = await call(token);
  if (response.status === 401) {
    // The token expired early (this clock is behind the server's) or was revoked: refresh once.
    if (!(await auth.refresh())) throw new ApiError(401, SIGNED_OUT);
    response = await call(await auth.accessToken());
  }
  return answer(response);
}

const enc = encodeURIComponent;
const SAMPLES_TIMEOUT_MS = 10_000; // a ride's batch that hangs (a tunnel) is given up and sent again under its key

const page = (nextToken) => (nextToken ? `&nextToken=${enc(nextToken)}` : "");

export const api = {
  classes: (limit, nextToken) => get(`/classes?limit=${limit}${page(nextToken)}`),
  races: (state, limit, nextToken) => get(`/races?state=${enc(state)}&limit=${limit}${page(nextToken)}`),
  classRaces: (classId) => get(`/classes/${enc(classId)}/races?limit=50`),
  classTop: (classId) => get(`/classes/${enc(classId)}/leaderboard?limit=1`),
  classLeaderboard: (classId) => get(`/classes/${enc(classId)}/leaderboard?limit=1000`),
  race: (raceId) => get(`/races/${enc(raceId)}`),
  // Every limit the frontend asks is a multiple of its page (100 rows): viewers share CloudFront's answers.
  raceLeaderboard: (raceId, limit) => get(`/races/${enc(raceId)}/leaderboard?limit=${limit}`),
  racerResults: (racerId) => get(`/racers/${enc(racerId)}/results?limit=20`),
  racerResultsPage: (racerId, nextToken) => get(`/racers/${enc(racerId)}/results?limit=100${page(nextToken)}`),
  racerHistory: (racerId, raceId) => get(`/racers/${enc(racerId)}/history?raceId=${enc(raceId)}`),
  // A settled race second by second (contract v1.2): every racer's cumulative score at each step; 409 until settled.
  replay: (raceId) => get(`/races/${enc(raceId)}/replay`),

  // Writes (signed in): a racer's display name (theirs, or any as admin), joining a race, the
  // samples of a ride; a class, a race, a race's finish (admin).
  putRacer: (racerId, name) => send("PUT", `/racers/${enc(racerId)}`, { name }),
  // equipment: "trainer" | "virtual" (what the ride is on); device: this browser's id, to move the ride here.
  joinRace: (raceId, racerId, equipment, device) =>
    send("PUT", `/races/${enc(raceId)}/racers/${enc(racerId)}`, device ? { equipment, device } : { equipment }),
  sendSamples: (raceId, samples, key, device) =>
    send("POST", `/races/${enc(raceId)}/telemetry`, { device, samples }, key, SAMPLES_TIMEOUT_MS),
  // metric: "output" | "power" (contract v1.3: what the class ranks; left out, the class keeps output).
  putClass: (classId, name, description, metric) =>
    send("PUT", `/classes/${enc(classId)}`, { name, ...(description ? { description } : {}), ...(metric ? { metric } : {}) }),
  createRace: (classId, startsAt, durationSeconds, key) =>
    send("POST", `/classes/${enc(classId)}/races`, { startsAt, durationSeconds }, key),
  finishRace: (raceId) => send("POST", `/races/${enc(raceId)}/finish`),
};

// A new Idempotency-Key: one per write a person asked for, the same on each retry of it.
export const newKey = () => globalThis.crypto?.randomUUID?.() || `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

// Fair play (contract v1.2): a race's board of real equipment only (bikes and trainers ranked alone);
// the reviews of rides an admin decides (admin only).
export const fairPlayApi = {
  realRaceLeaderboard: (raceId, limit) => get(`/races/${enc(raceId)}/leaderboard?equipment=real&limit=${limit}`),
  reviews: (state, limit, nextToken) => send("GET", `/reviews?state=${enc(state)}&limit=${limit}${page(nextToken)}`),
  // decision: "clear" | "disqualify"; note: optional, ≤ 500 characters.
  decideReview: (raceId, racerId, decision, note) => send("POST", `/races/${enc(raceId)}/racers/${enc(racerId)}/review`,
    note ? { decision, note } : { decision }),
};
