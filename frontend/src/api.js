// The Alleycat HTTP API (read routes only); the base URL comes from config.json.

let baseUrl = "";

export async function loadConfig() {
  try {
    const response = await fetch("config.json", { cache: "no-store" });
    if (response.ok) baseUrl = ((await response.json()).apiUrl || "").replace(/\/+$/, "");
  } catch {
    baseUrl = ""; // no config: the API is on the same origin
  }
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function get(path) {
  const response = await fetch(baseUrl + path, { cache: "no-store" });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, body.message || response.statusText);
  return body;
}

const enc = encodeURIComponent;

export const api = {
  classRaces: (classId) => get(`/classes/${enc(classId)}/races?limit=50`),
  classLeaderboard: (classId) => get(`/classes/${enc(classId)}/leaderboard?limit=1000`),
  race: (raceId) => get(`/races/${enc(raceId)}`),
  raceLeaderboard: (raceId) => get(`/races/${enc(raceId)}/leaderboard?limit=1000`),
  racerResults: (racerId) => get(`/racers/${enc(racerId)}/results?limit=20`),
  racerHistory: (racerId, raceId) => get(`/racers/${enc(racerId)}/history?raceId=${enc(raceId)}`),
};
