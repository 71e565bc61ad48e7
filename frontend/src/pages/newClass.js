// An admin's "New class" form, on the home page's Classes section (shown to admins only; the API
// refuses anyone else anyway): a name, a class id (its address, suggested from the name), an
// optional description, what it ranks (its metric: output or power, each said in a sentence; contract
// v1.3) -> PUT /classes/{classId}, then the new class's page.
import { api } from "../api.js";
import { h } from "../dom.js";
import { classIdProblem, descriptionProblem, nameProblem, slug } from "../fields.js";
import { METRICS, OUTPUT } from "../power.js";
import { adminBadge, adminOnly, field, focusFirst, show } from "./formField.js";

// A class id already taken: PUT would replace that class. Read from the class's leaderboard
// (limit=1), not from its races list: a miss is kept a second at the edge, and the class page reads
// the list right after the class is made.
async function taken(classId) {
  try {
    return (await api.classTop(classId)).name;
  } catch (error) {
    if (error.status === 404) return null;
    throw error;
  }
}

function newClassForm() {
  const nameInput = h("input", { name: "name", type: "text", maxlength: "200", placeholder: "Hill climb" });
  const idInput = h("input", { name: "classId", type: "text", maxlength: "200", placeholder: "hill-climb", spellcheck: "false",
    autocapitalize: "off" });
  const descriptionInput = h("textarea", { name: "description", rows: "2", maxlength: "1000", placeholder: "Long seated climbs" });
  const name = field("class-name", "Name", nameInput);
  const id = field("class-id", "Class id", idInput, "Letters, digits, - and _: the class's address (#/classes/…).");
  const description = field("class-description", "Description (optional)", descriptionInput);
  // What the class ranks: a radio each, its sentence under it. Output is chosen until the admin picks.
  const metricChoices = METRICS.map(({ metric, label, ranks }) => {
    const input = h("input", { type: "radio", name: "metric", value: metric, id: `class-metric-${metric}`,
      "aria-describedby": `class-metric-${metric}-says` });
    input.checked = metric === OUTPUT;
    return h("div", { class: `metric-choice metric-${metric}` }, input,
      h("label", { for: `class-metric-${metric}` }, h("strong", {}, label)),
      h("p", { class: "muted", id: `class-metric-${metric}-says` }, ranks));
  });
  const metricRow = h("fieldset", { class: "field metric" }, h("legend", {}, "Ranks by"), metricChoices,
    h("p", { class: "muted field-message" }, "It cannot change once the class has races."));
  const chosenMetric = () => form.querySelector("input[name=metric]:checked")?.value ?? OUTPUT;
  const result = h("p", { class: "form-message", role: "status" });
  const create = h("button", { type: "submit", class: "primary" }, "Create class");
  const form = h("form", { class: "new-class", novalidate: "" }, name.row, id.row, description.row, metricRow,
    h("div", { class: "inline" }, create), result);

  let idEdited = false;
  nameInput.addEventListener("input", () => {
    if (!idEdited) idInput.value = slug(nameInput.value);
  });
  idInput.addEventListener("input", () => {
    idEdited = idInput.value !== "";
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    result.textContent = "";
    const problems = [show(name, nameProblem(nameInput.value, "The name")), show(id, classIdProblem(idInput.value.trim())),
      show(description, descriptionProblem(descriptionInput.value))];
    if (focusFirst(problems, [nameInput, idInput, descriptionInput])) return;
    const classId = idInput.value.trim();
    create.disabled = true;
    try {
      const existing = await taken(classId);
      if (existing !== null) {
        show(id, `The class id “${classId}” is taken (by “${existing}”): choose another.`);
        idInput.focus();
        return;
      }
      await api.putClass(classId, nameInput.value.trim(), descriptionInput.value.trim(), chosenMetric());
      location.hash = `#/classes/${encodeURIComponent(classId)}`;
    } catch (error) {
      result.className = "error form-message";
      result.textContent = `Not created: ${error.message}`;
    } finally {
      create.disabled = false;
    }
  });
  return h("details", { class: "card admin new-class-box" }, h("summary", {}, "New class ", adminBadge()), form);
}

// The form's place on the page (admins only). Returns {element, stop}.
export const adminNewClass = () => adminOnly("admin-tools", () => [newClassForm()]);
