// A form's field for the admin forms: a label, the control and a message under it (a hint, or what
// is wrong with the value).
import { ApiError } from "../api.js";
import { auth } from "../auth.js";
import { h } from "../dom.js";

// {row, message, hint}: the row goes in the form; show() writes in the message.
export function field(id, label, control, hint = "") {
  const message = h("p", { id: `${id}-message`, class: "muted field-message" }, hint);
  control.setAttribute("id", id);
  control.setAttribute("aria-describedby", `${id}-message`);
  return { row: h("div", { class: "field" }, h("label", { for: id }, label), control, message), message, hint };
}

// The field's problem (a message, or null for its hint again); returns the problem.
export function show(entry, problem) {
  entry.message.textContent = problem || entry.hint;
  entry.message.className = problem ? "error field-message" : "muted field-message";
  return problem;
}

// The first field with a problem gets the focus; whether there was one.
export function focusFirst(problems, controls) {
  const first = problems.findIndex(Boolean);
  if (first >= 0) controls[first].focus();
  return first >= 0;
}

// Why a write failed, for "Not saved: …": the API's message, or that no answer came.
export const why = (error) => (error instanceof ApiError ? error.message.replace(/\.$/, "")
  : "the server did not answer (is the connection down?)");

// A place on a page for admin tools: `build()`'s elements while the signed-in user is an admin,
// nothing otherwise. Returns {element, stop}.
export function adminOnly(className, build) {
  const element = h("div", { class: className });
  const draw = () => {
    const admin = Boolean(auth.identity?.admin);
    if (admin && !element.firstChild) element.append(...build());
    if (!admin) element.replaceChildren();
  };
  draw();
  return { element, stop: auth.onChange(draw) };
}

export const adminBadge = () => h("span", { class: "status admin" }, "admin");
