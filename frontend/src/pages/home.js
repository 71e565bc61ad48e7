// Landing page: pick a class by id (there is no route listing classes).
import { h, link } from "../dom.js";

export const DEMO_CLASS = "demo-class";
const RECENT_KEY = "alleycat.recentClasses";
const RECENT_LIMIT = 8;

export function recentClasses() {
  try {
    return JSON.parse(localStorage.getItem(RECENT_KEY)) || [];
  } catch {
    return [];
  }
}

export function rememberClass(classId) {
  const recent = [classId, ...recentClasses().filter((id) => id !== classId)].slice(0, RECENT_LIMIT);
  localStorage.setItem(RECENT_KEY, JSON.stringify(recent));
}

export function homePage() {
  const input = h("input", { name: "classId", value: recentClasses()[0] || DEMO_CLASS,
    required: "", pattern: "[A-Za-z0-9_\\-]{1,64}", autocomplete: "off", "aria-label": "Class id" });
  const form = h("form", { class: "pick", onsubmit: (event) => {
    event.preventDefault();
    location.hash = `#/classes/${encodeURIComponent(input.value.trim())}`;
  } }, input, h("button", { type: "submit" }, "Open class"));
  const known = [...new Set([DEMO_CLASS, ...recentClasses()])];
  const element = h("section", {},
    h("h1", {}, "Race day"),
    h("p", { class: "muted" }, "Enter a class id to see its races, live leaderboards and all-time bests."),
    form,
    h("h2", {}, "Recent classes"),
    h("ul", { class: "recent" }, known.map((id) => h("li", {}, link(`#/classes/${encodeURIComponent(id)}`, id)))));
  return { element };
}
