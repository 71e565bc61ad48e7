// What a form field may hold, checked in the page before anything is sent (the API checks again),
// and how a TOTP secret is shown. Each check returns the message to show, or null when the value is
// fine. Runs in a browser and in Node (tests/integration/test_auth_js.py).

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
