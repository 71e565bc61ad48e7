// What a race reads as: its class and start time ("Hill climb · 18:30"), never its id; its state
// as people looking for races see it (the contract's: upcoming, live, finished).
import { startTime } from "./time.js";

// className: the class's name when the caller knows it (else the item's own className, as
// GET /races gives it, else the class id); when: how the start reads (time.js: startTime, startDate).
export const raceLabel = (race, className, when = startTime) =>
  `${className || race.className || race.classId} · ${when(race.startsAt)}`;

export const raceHref = (raceId) => `#/races/${encodeURIComponent(raceId)}`;
// A finished race's page, its replay opened (pages/raceReplay.js).
export const replayHref = (raceId) => `${raceHref(raceId)}/replay`;

export function raceState(race, now = Date.now()) {
  if (race.status !== "open") return "finished";
  return now < Date.parse(race.startsAt) ? "upcoming" : "live";
}
