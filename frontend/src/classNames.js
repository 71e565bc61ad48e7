// Class names by class id, for pages that know a race's classId but not its class's name (a race,
// a racer's results): every class, read once while the app is open (GET /classes, a page of 100 at a
// time); a class that is not among them (made since) from GET /classes/{classId}/races — the class
// page's own request, so the edge answers both — read once per class.
//
// Their metrics too (contract v1.3: a race's answers do not carry it, its class does): from the same
// list; a class not among them from its leaderboard's first row (GET /classes/{classId}/leaderboard?limit=1,
// which names the metric), read once per class.
import { api } from "./api.js";
import { metricOf } from "./power.js";

const CLASSES_PAGE = 100; // the contract's largest limit

let everyClass = null; // Promise<Map classId -> {name, metric}>
const names = new Map(); // classId -> Promise<name>
const metrics = new Map(); // classId -> Promise<metric>

async function readEveryClass() {
  const found = new Map();
  let nextToken = null;
  do {
    const page = await api.classes(CLASSES_PAGE, nextToken);
    page.items.forEach((item) => found.set(item.classId, { name: item.name, metric: metricOf(item) }));
    nextToken = page.nextToken;
  } while (nextToken);
  return found;
}

const forget = (forgotten) => (error) => {
  forgotten(); // asked again next time
  throw error;
};

export function className(classId) {
  if (!names.has(classId)) {
    everyClass ||= readEveryClass().catch(forget(() => { everyClass = null; }));
    names.set(classId, everyClass
      .then((found) => found.get(classId)?.name ?? api.classRaces(classId).then((answer) => answer.name))
      .catch(forget(() => names.delete(classId))));
  }
  return names.get(classId);
}

// The class's metric: "output" or "power".
export function classMetric(classId) {
  if (!metrics.has(classId)) {
    everyClass ||= readEveryClass().catch(forget(() => { everyClass = null; }));
    metrics.set(classId, everyClass
      .then((found) => found.get(classId)?.metric ?? api.classTop(classId).then(metricOf))
      .catch(forget(() => metrics.delete(classId))));
  }
  return metrics.get(classId);
}

// { classId: metric } for every class id given; one that cannot be read is left out (read as output).
export async function classMetrics(classIds) {
  const unique = [...new Set(classIds)];
  const found = await Promise.all(unique.map((classId) => classMetric(classId).catch(() => null)));
  return Object.fromEntries(unique.map((classId, index) => [classId, found[index]]).filter(([, metric]) => metric));
}

// { classId: name } for every class id given; a name that cannot be read is left out (labels fall
// back to the class id).
export async function classNames(classIds) {
  const unique = [...new Set(classIds)];
  const found = await Promise.all(unique.map((classId) => className(classId).catch(() => null)));
  return Object.fromEntries(unique.map((classId, index) => [classId, found[index]]).filter(([, name]) => name));
}

// A class an admin renamed on this page: its new name from now on (the pages read it from here).
export function renamed(classId, name) {
  names.set(classId, Promise.resolve(name));
}
