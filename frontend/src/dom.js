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

// (One formatter, made once: a replay writes a dozen scores a frame, and each toLocaleString makes its own.)
const scoreFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
export const score = (value) => scoreFormat.format(value ?? 0);

// A place: "1st", "2nd", "3rd", "11th", "21st".
export const ordinal = (n) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${suffix}`;
};

export function errorBox(error) {
  const text = error.status === 404 ? "Not found." : `Could not load: ${error.message}`;
  return h("p", { class: "error" }, text);
}
