// The field as a picture: every rider a band of score on a strip (the bands of rideFeel.fieldBins, the
// last rider's score at the left, the leader's at the right), marks at places on it (the rider, a ghost:
// each a line across the strip and a label above it), the last rider's and the leader's scores at its
// ends. Drawn by the ride page (rideField.js) and the replay (raceReplay.js); the arithmetic is theirs.
import { h } from "../dom.js";

const HEIGHT = 40;
const MIN_BAR = 5; // a band with anyone in it shows at least this high, however tall the crowd's band

const SVG = "http://www.w3.org/2000/svg";
const svg = (tag, attributes = {}) => {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
};

// A strip of `bins` bands. Its element holds the marks' labels, the strip and its ends; draw() paints it.
export function fieldStrip(bins) {
  const bars = Array.from({ length: bins }, (_, index) => svg("rect", { x: index + 0.1, width: 0.8, y: HEIGHT, height: 0 }));
  const chart = svg("svg", { viewBox: `0 0 ${bins} ${HEIGHT}`, preserveAspectRatio: "none", "aria-hidden": "true" });
  chart.append(...bars);
  const labels = h("div", { class: "mark-row" });
  const strip = h("div", { class: "strip" }, chart);
  const lowLabel = h("span", { class: "low" });
  const leaderLabel = h("span", { class: "leader" });
  const element = h("div", { class: "field-strip" }, labels, strip, h("div", { class: "ends" }, lowLabel, leaderLabel));
  const drawn = new Map(); // a mark's kind -> its line and label
  const shownBars = bars.map(() => ({ height: 0, band: "" })); // what each band shows: set again only where it changes

  function markOf(kind) {
    if (!drawn.has(kind)) {
      const mark = { line: h("span", { class: `marker ${kind}` }), label: h("span", { class: `mark-label ${kind}-label` }) };
      strip.append(mark.line);
      labels.append(mark.label);
      drawn.set(kind, mark);
    }
    return drawn.get(kind);
  }

  return {
    element,
    // counts: riders in each band (rideFeel.fieldBins). marks: [{kind, at, label, band, hidden}], `at`
    // its place from 0 (the last rider) to 1 (the leader); `kind` names its classes (`marker <kind>`,
    // `mark-label <kind>-label`); with `band`, the band it is in takes that class; a `hidden` mark
    // colours its band only. A kind drawn before and not
    // now is hidden. low: the text at the left end; leader: the nodes at the right end.
    draw({ counts, marks = [], low = "", leader = [] }) {
      const peak = Math.max(...counts);
      const bandClass = new Map();
      for (const mark of marks) {
        if (mark.band) bandClass.set(Math.min(bins - 1, Math.floor(mark.at * bins)), mark.band);
      }
      counts.forEach((n, index) => {
        const height = n ? Math.max(MIN_BAR, (n / peak) * HEIGHT) : 0;
        const band = bandClass.get(index) ?? "";
        const shown = shownBars[index];
        if (shown.height !== height) {
          bars[index].setAttribute("y", String(HEIGHT - height));
          bars[index].setAttribute("height", String(height));
          shown.height = height;
        }
        if (shown.band !== band) {
          bars[index].setAttribute("class", band);
          shown.band = band;
        }
      });
      const shown = new Set();
      for (const { kind, at, label, hidden } of marks) {
        if (hidden) continue;
        const mark = markOf(kind);
        shown.add(kind);
        mark.line.hidden = mark.label.hidden = false;
        mark.line.style.left = mark.label.style.left = `${(at * 100).toFixed(2)}%`; // CSSOM: the CSP allows it (no style attribute)
        mark.label.className = `mark-label ${kind}-label ${at < 0.2 ? "at-start" : at > 0.8 ? "at-end" : ""}`;
        mark.label.textContent = label;
      }
      for (const [kind, mark] of drawn) {
        if (!shown.has(kind)) mark.line.hidden = mark.label.hidden = true;
      }
      lowLabel.textContent = low;
      leaderLabel.replaceChildren(...leader);
    },
  };
}
