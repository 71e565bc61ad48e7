// How times read on the page: a start as "18:30" (local time; with the day when it is not today),
// a wait as "4:12", a race's length as "5 min".

const DAY_MS = 86_400_000;
export const pad = (number) => String(number).padStart(2, "0");
const dayStart = (date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();

export const clockTime = (date) => `${pad(date.getHours())}:${pad(date.getMinutes())}`;

// "18:30" today, "tomorrow 18:30", "yesterday 18:30", else "Sat, Nov 22, 18:30" (the year too when
// it is not this year), in the viewer's time zone and language.
export function startTime(iso, now = Date.now()) {
  const date = new Date(iso);
  const today = new Date(now);
  const days = Math.round((dayStart(date) - dayStart(today)) / DAY_MS); // round: a DST day is 23 or 25 h
  const time = clockTime(date);
  if (days === 0) return time;
  if (days === 1) return `tomorrow ${time}`;
  if (days === -1) return `yesterday ${time}`;
  const year = date.getFullYear() === today.getFullYear() ? {} : { year: "numeric" };
  return `${date.toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short", ...year })}, ${time}`;
}

// A start with its day always: "Fri, 27 Nov, 18:30" (the year too when it is not this year), in the
// viewer's time zone and language: a result read weeks later says when it was.
export function startDate(iso, now = Date.now()) {
  const date = new Date(iso);
  const year = date.getFullYear() === new Date(now).getFullYear() ? {} : { year: "numeric" };
  return `${date.toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short", ...year })}, ${clockTime(date)}`;
}

// Time left, counted in whole seconds rounded up (it reads 0:01 until the very moment):
// "4:12", "1:04:12", "3 d 4 h".
export function timeLeft(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor(total / 3600) % 24;
  const minutes = Math.floor(total / 60) % 60;
  const seconds = total % 60;
  if (days) return `${days} d ${hours} h`;
  if (hours) return `${hours}:${pad(minutes)}:${pad(seconds)}`;
  return `${minutes}:${pad(seconds)}`;
}

// A race's length: "5 min", "90 s".
export const duration = (seconds) => (seconds % 60 ? `${seconds} s` : `${seconds / 60} min`);
