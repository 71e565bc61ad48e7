// Per-second output (and cadence, resistance, heart rate) of one racer in one race, drawn with uPlot;
// optionally with marked seconds (the reviews page: where a ride broke a rule) as dots on their own
// series. Heart rate (bpm, on the rpm / % axis: 30-250 sits in its 0-300) is a series only for a ride
// that sent one (the chart is drawn again when the first arrives); its seconds without one are gaps.
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

const HEIGHT = 280;

// Which of a sample's values a mark sits on (samples: [second, cadence, resistance, output, ...]).
const MARKED_VALUE = { output: 3, cadence: 1 };

export const hasHeartRate = (samples) => samples.some((sample) => sample[4] != null);

// samples: [[second, cadence, resistance, output, heartRate], ...] -> uPlot's column arrays (second,
// output, cadence, resistance, then heart rate, null where none was sent, if the ride sent any); marks:
// [{ label, on: "output"|"cadence", seconds: [second, ...], color? }] -> a column each, the value at a
// marked second and null elsewhere.
export function columns(samples, marks = []) {
  const values = hasHeartRate(samples) ? [0, 3, 1, 2, 4] : [0, 3, 1, 2];
  const data = values.map((index) => samples.map((sample) => sample[index] ?? null));
  for (const mark of marks) {
    const seconds = new Set(mark.seconds);
    data.push(samples.map((sample) => (seconds.has(sample[0]) ? sample[MARKED_VALUE[mark.on]] : null)));
  }
  return data;
}

export class OutputChart {
  constructor(container, { marks = [] } = {}) {
    this.container = container;
    this.marks = marks;
    this.plot = null;
    this.resize = () => this.plot?.setSize({ width: this.width(), height: HEIGHT });
    window.addEventListener("resize", this.resize);
  }

  width() {
    return Math.max(this.container.clientWidth, 280);
  }

  show(samples) {
    const data = columns(samples, this.marks);
    const withHeartRate = hasHeartRate(samples);
    if (this.plot && this.withHeartRate === withHeartRate) {
      this.plot.setData(data);
      return;
    }
    this.plot?.destroy();
    this.withHeartRate = withHeartRate;
    this.plot = new uPlot({
      width: this.width(),
      height: HEIGHT,
      scales: { x: { time: false } },
      axes: [
        { label: "second" },
        { label: "output", scale: "output" },
        { label: withHeartRate ? "rpm / % / bpm" : "rpm / %", scale: "input", side: 1, grid: { show: false } },
      ],
      series: [
        { label: "second" },
        { label: "output", scale: "output", stroke: "#e4572e", width: 2, fill: "rgba(228,87,46,0.08)" },
        { label: "cadence", scale: "input", stroke: "#2e86ab", width: 1 },
        { label: "resistance", scale: "input", stroke: "#76b041", width: 1 },
        ...(withHeartRate ? [{ label: "heart rate", scale: "input", stroke: "#c0392b", width: 1, dash: [4, 3] }] : []),
        ...this.marks.map((mark) => ({
          label: mark.label, scale: mark.on === "output" ? "output" : "input", stroke: mark.color || "#b3001b", width: 0,
          paths: () => null, points: { show: true, size: 5, stroke: mark.color || "#b3001b", fill: mark.color || "#b3001b" },
        })),
      ],
    }, data, this.container);
  }

  destroy() {
    window.removeEventListener("resize", this.resize);
    this.plot?.destroy();
  }
}
