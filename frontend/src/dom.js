// A tiny element builder and formatting helpers.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") element.className = value;
    else if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, value);
  }
  element.append(...children.flat().filter((child) => child !== null && child !== undefined));
  return element;
}

export const link = (href, text) => h("a", { href }, text);

export const score = (value) => (value ?? 0).toLocaleString(undefined, { maximumFractionDigits: 1 });

export function errorBox(error) {
  const text = error.status === 404 ? "Not found." : `Could not load: ${error.message}`;
  return h("p", { class: "error" }, text);
}
