// The Alleycat HTTP API (read routes only), on the site's own origin: CloudFront in AWS, the
// local server in `make local`. The API's Cache-Control decides how long an answer is reused.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function get(path) {
  const response = await fetch(path, { cache: "no-store" });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, body.message || response.statusText);
  return body;
}

const enc = encodeURIComponent;

const page = (nextToken) => (nextToken ? `&nextToken=${enc(nextToken)}` : "");

export const api = {
  classes: (limit, nextToken) => get(`/classes?limit=${limit}${page(nextToken)}`),
  races: (state, limit, nextToken) => get(`/races?state=${enc(state)}&limit=${limit}${page(nextToken)}`),
  classRaces: (classId) => get(`/classes/${enc(classId)}/races?limit=50`),
  classLeaderboard: (classId) => get(`/classes/${enc(classId)}/leaderboard?limit=1000`),
  race: (raceId) => get(`/races/${enc(raceId)}`),
  // Every limit the frontend asks is a multiple of its page (100 rows): viewers share CloudFront's answers.
  raceLeaderboard: (raceId, limit) => get(`/races/${enc(raceId)}/leaderboard?limit=${limit}`),
  racerResults: (racerId) => get(`/racers/${enc(racerId)}/results?limit=20`),
  racerHistory: (racerId, raceId) => get(`/racers/${enc(racerId)}/history?raceId=${enc(raceId)}`),
};
