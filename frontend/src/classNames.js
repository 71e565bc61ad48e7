// Class names by class id, for pages that know a race's classId but not its class's name (a race,
// a racer's results): the "name" of GET /classes/{classId}/races — the class page's own request,
// so the edge answers both — read once per class while the app is open.
import { api } from "./api.js";

const names = new Map(); // classId -> Promise<name>

export function className(classId) {
  if (!names.has(classId)) {
    names.set(classId, api.classRaces(classId).then((answer) => answer.name, (error) => {
      names.delete(classId); // asked again next time
      throw error;
    }));
  }
  return names.get(classId);
}

// { classId: name } for every class id given; a name that cannot be read is left out (labels fall
// back to the class id).
export async function classNames(classIds) {
  const unique = [...new Set(classIds)];
  const found = await Promise.all(unique.map((classId) => className(classId).catch(() => null)));
  return Object.fromEntries(unique.map((classId, index) => [classId, found[index]]).filter(([, name]) => name));
}
