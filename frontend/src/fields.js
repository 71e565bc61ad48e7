// What a form field may hold, checked in the page before anything is sent (the API checks again),
// and how a TOTP secret is shown. Each check returns the message to show, or null when the value is
// fine. Runs in a browser and in Node (tests/integration/test_auth_js.py).

import { clockTime, pad } from "./time.js";

const length = (text) => [...text].length; // characters, not UTF-16 units: "🚲" is one

// A racer's display name or a class's name: 1–80 characters once trimmed (the contract's limit).
export function nameProblem(name, what = "Your name") {
  const trimmed = (name || "").trim();
  if (!trimmed) return `${what} cannot be empty.`;
  if (length(trimmed) > 80) return `${what} is ${length(trimmed)} characters long: at most 80, please.`;
  return null;
}

// A class id: 1–64 of A–Z a–z 0–9 _ - (it is part of the class's address, #/classes/<id>).
export function classIdProblem(classId) {
  const value = classId || "";
  if (!value) return "The class id cannot be empty.";
  if (value.length > 64) return `The class id is ${value.length} characters long: at most 64, please.`;
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return "The class id may hold only letters, digits, - and _ (no spaces), e.g. hill-climb.";
  return null;
}

export function descriptionProblem(description) {
  const count = length((description || "").trim());
  return count > 500 ? `The description is ${count} characters long: at most 500, please.` : null;
}

// A suggested class id for a class's name: "Hill climb #2" -> "hill-climb-2".
export const slug = (name) => (name || "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
  .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64).replace(/-+$/, "");

// A code from an authenticator app: six digits (spaces a person types in the middle are dropped).
export function totpCode(text) {
  const code = (text || "").replace(/\s+/g, "");
  return /^\d{6}$/.test(code) ? code : null;
}

// A base32 secret as people copy it by eye: groups of four ("JBSW Y3DP EHPK 3PXP").
export const groupedSecret = (secret) => (secret || "").replace(/\s+/g, "").match(/.{1,4}/g)?.join(" ") || "";

// The key URI authenticator apps read (github.com/google/google-authenticator/wiki/Key-Uri-Format).
export function otpauthUri(account, secret, issuer = "Alleycat") {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  return `otpauth://totp/${label}?secret=${encodeURIComponent(secret)}&issuer=${encodeURIComponent(issuer)}`;
}

// A race's length, typed in whole minutes: 1–60 (the contract's 60–3600 seconds).
export function durationProblem(minutes) {
  const text = String(minutes ?? "").trim();
  if (!text) return "How long is the race? Give its length in minutes, 1 to 60.";
  if (!/^\d+$/.test(text)) return `A race lasts whole minutes, 1 to 60: “${text}” is not one.`;
  const count = Number(text);
  if (count < 1) return "A race lasts at least 1 minute.";
  if (count > 60) return `A race lasts at most 60 minutes: ${count} is too long.`;
  return null;
}

// A start as <input type="datetime-local"> holds it ("2026-11-22T18:30", the admin's local time):
// its moment (ms), or NaN when it is not one.
export function localStart(value) {
  const found = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value || "");
  if (!found) return NaN;
  const [year, month, day, hours, minutes, seconds] = found.slice(1).map((part) => Number(part || 0));
  const date = new Date(year, month - 1, day, hours, minutes, seconds);
  return date.getMonth() === month - 1 && date.getDate() === day ? date.getTime() : NaN;
}

// How long a race made to start "now" is up next at least: a racer on the home page sees it within 20 s
// (the page reads its lists every 15 s, the edge keeps them 5 s; the class page reads every 5 s), and
// then has 40 s or more to press "Join and ride →" before the start.
export const JOIN_LEAD_MS = 60_000;
const MINUTE_MS = 60_000;

// The earliest start racers can make: the first whole minute at least JOIN_LEAD_MS from `now`
// (60–120 s ahead; the form holds whole minutes).
export const earliestStart = (now = Date.now()) => Math.ceil((now + JOIN_LEAD_MS) / MINUTE_MS) * MINUTE_MS;

// A race's start: a day and a time, not a minute already over (no racer could join before it). The
// minute under way means "now": startFor makes it the earliest start racers can make.
export function startProblem(value, now = Date.now()) {
  const start = localStart(value);
  if (Number.isNaN(start)) return "Choose the day and the time the race starts.";
  if (start + MINUTE_MS <= now) {
    return `That time has passed: no racer could join before it. Choose ${clockTime(new Date(earliestStart(now)))} or later `
      + "(the current minute means as soon as racers can join).";
  }
  return null;
}

// The start to ask for (ms): the form's value, or, when that is less than JOIN_LEAD_MS away (the
// minute under way: "now"), the earliest start racers can make. NaN when the value is no time.
export function startFor(value, now = Date.now()) {
  const start = localStart(value);
  return start < now + JOIN_LEAD_MS ? earliestStart(now) : start;
}

// A moment as <input type="datetime-local"> shows it: local time, to the minute.
export const localInput = (ms) => {
  const date = new Date(ms);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${clockTime(date)}`;
};

// The start a new race is offered: the next whole 5 minutes at least 2 minutes from now (time to
// tell the racers).
export const nextStart = (now = Date.now()) => Math.ceil((now + 2 * 60_000) / 300_000) * 300_000;
