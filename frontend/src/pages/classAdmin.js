// An admin's race day on a class's page (shown to admins only; the API refuses anyone else anyway):
// schedule the class's races (POST /classes/{classId}/races) and rename it (PUT /classes/{classId}).
import { api, ApiError, newKey } from "../api.js";
import { renamed } from "../classNames.js";
import { h, link } from "../dom.js";
import { descriptionProblem, durationProblem, localInput, localStart, nameProblem, nextStart, startFor, startProblem } from "../fields.js";
import { raceHref } from "../races.js";
import { serverClock } from "../serverTime.js";
import { duration, startTime } from "../time.js";
import { adminBadge, adminOnly, field, focusFirst, show, why } from "./formField.js";

const CLASSES_PAGE = 100; // the contract's largest

// The class as GET /classes lists it ({classId, name, description, metric}), or null. The list is sorted by
// class id: its pages are read up to the one that holds it (one page while there are 100 classes).
async function listedClass(classId) {
  let nextToken = null;
  do {
    const page = await api.classes(CLASSES_PAGE, nextToken);
    const found = page.items.find((item) => item.classId === classId);
    if (found) return found;
    if (page.items.at(-1)?.classId > classId) return null;
    nextToken = page.nextToken;
  } while (nextToken);
  return null;
}


function saying(result) {
  return (text, kind = "muted") => {
    result.className = `${kind} form-message`;
    result.replaceChildren(...[text].flat());
  };
}

// onRenamed(name): the class's new name, saved.
function renameForm(classId, onRenamed) {
  const nameInput = h("input", { name: "name", type: "text", maxlength: "200" });
  const descriptionInput = h("textarea", { name: "description", rows: "2", maxlength: "1000" });
  const name = field("rename-name", "Name", nameInput);
  const description = field("rename-description", "Description (optional)", descriptionInput);
  const result = h("p", { class: "form-message", role: "status" });
  const save = h("button", { type: "submit", class: "primary", disabled: "" }, "Rename");
  const form = h("form", { class: "rename-class", novalidate: "" }, name.row, description.row, h("div", { class: "inline" }, save), result);
  const box = h("details", { class: "card admin rename-class-box" }, h("summary", {}, "Rename class ", adminBadge()), form);
  const say = saying(result);

  // The current name and description, read when the box is first opened: the form starts from them
  // (PUT replaces both, so nothing is sent before they are read).
  let reading = null;
  let metric = null; // the class's, sent back unchanged (a PUT without one would make it an output class)
  box.addEventListener("toggle", () => {
    if (!box.open || reading) return;
    say("Reading the class…");
    reading = listedClass(classId).then((found) => {
      if (!found) throw new Error("not listed");
      nameInput.value = found.name;
      descriptionInput.value = found.description || "";
      metric = found.metric ?? null;
      save.disabled = false;
      say("");
    }).catch((error) => {
      reading = null;
      say(`Could not read the class's name and description (${error.message === "not listed" ? "it is not listed yet" : why(error)}): `
        + "close this box and open it again to retry.", "error");
    });
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    say("");
    const problems = [show(name, nameProblem(nameInput.value, "The name")), show(description, descriptionProblem(descriptionInput.value))];
    if (focusFirst(problems, [nameInput, descriptionInput])) return;
    save.disabled = true;
    try {
      const answer = await api.putClass(classId, nameInput.value.trim(), descriptionInput.value.trim(), metric);
      renamed(classId, answer.name);
      onRenamed(answer.name);
      say(`Saved: the class is “${answer.name}”.`, "saved");
    } catch (error) {
      say(`Not renamed: ${why(error)}.`, "error");
    } finally {
      save.disabled = false;
    }
  });
  return box;
}

// onScheduled(race): the race made, as POST answered it.
function scheduleForm(classId, onScheduled) {
  const startInput = h("input", { name: "startsAt", type: "datetime-local", step: "60" });
  const durationInput = h("input", { name: "duration", type: "number", min: "1", max: "60", step: "1", inputmode: "numeric", value: "5" });
  const start = field("race-start", "Starts", startInput, "Your local time.");
  const length = field("race-duration", "Length", durationInput, "Minutes, 1 to 60.");
  const result = h("p", { class: "form-message", role: "status" });
  const submit = h("button", { type: "submit", class: "primary" }, "Schedule race");
  const form = h("form", { class: "schedule-race", novalidate: "" }, h("div", { class: "when" }, start.row, length.row),
    h("div", { class: "inline" }, submit), result);
  const box = h("details", { class: "card admin schedule-race-box" }, h("summary", {}, "Schedule a race ", adminBadge()), form);
  const say = saying(result);

  // The race asked for and not made yet ({values, key, startsAt, moved}): pressed again for the same
  // start and length, the same start goes under the same Idempotency-Key ("now" as it was resolved the
  // first time), so a retry after a lost answer never makes a second race.
  let asked = null;
  // The start offered follows the clock (on each opening) until the admin picks one or a request is out.
  let startPicked = false;
  const offerStart = () => {
    if (!startPicked && !asked) startInput.value = localInput(nextStart(serverClock.now()));
  };
  offerStart();
  startInput.addEventListener("input", () => { startPicked = true; });
  box.addEventListener("toggle", () => box.open && offerStart());

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    say("");
    const lengthProblem = show(length, durationProblem(durationInput.value));
    const seconds = lengthProblem ? null : Number(durationInput.value.trim()) * 60;
    const now = serverClock.now(); // the server's: a computer's clock minutes off still schedules the right minute
    const values = `${startInput.value} ${seconds}`;
    const again = asked?.values === values;
    const problems = [show(start, again ? null : startProblem(startInput.value, now)), lengthProblem];
    if (focusFirst(problems, [startInput, durationInput])) return;
    if (!again) {
      const startMs = startFor(startInput.value, now);
      asked = { values, key: newKey(), startsAt: new Date(startMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
        moved: startMs !== localStart(startInput.value) };
    }
    const { startsAt, moved } = asked;
    submit.disabled = true;
    say("Scheduling…");
    try {
      const race = await api.createRace(classId, startsAt, seconds, asked.key);
      asked = null;
      const soonest = moved ? " (the earliest start racers can make: a minute or more to join)" : "";
      say([`Scheduled: ${startTime(race.startsAt)}${soonest}, ${duration(race.durationSeconds)}. `,
        link(raceHref(race.raceId), "Open the race →")], "saved");
      onScheduled(race);
    } catch (error) {
      const retry = !(error instanceof ApiError) || error.status >= 500;
      say(`Not scheduled: ${why(error)}.${retry ? " Press “Schedule race” again to retry: it cannot make a second race." : ""}`, "error");
    } finally {
      submit.disabled = false;
    }
  });
  return box;
}

// The tools' place on the class page (admins only). on: {renamed(name), scheduled(race)}. Returns {element, stop}.
export const classAdmin = (classId, on) => adminOnly("admin-tools class-admin",
  () => [scheduleForm(classId, on.scheduled), renameForm(classId, on.renamed)]);
