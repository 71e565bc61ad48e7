// Per-second output (and cadence, resistance, heart rate) of one racer in one race, drawn with uPlot;
// optionally with marked seconds (the reviews page: where a ride broke a rule) as dots on their own
// series. Heart rate (bpm, on the rpm / % axis: 30-250 sits in its 0-300) is shown only for a ride
// that sent one; its seconds without one are gaps.
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

const HEIGHT = 280;

// Which of a sample's values a mark sits on (samples: [second, cadence, resistance, output, ...]).
const MARKED_VALUE = { output: 3, cadence: 1 };
const HEART_RATE_SERIES = 4; // its place in columns()

// samples: [[second, cadence, resistance, output, heartRate], ...] -> uPlot's column arrays (second,
// output, cadence, resistance, heart rate: null where none was sent); marks:
// [{ label, on: "output"|"cadence", seconds: [second, ...], color? }] -> a column each, the value at a
// marked second and null elsewhere.
export function columns(samples, marks = []) {
  const data = [0, 3, 1, 2, 4].map((index) => samples.map((sample) => sample[index] ?? null));
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
    const withHeartRate = data[HEART_RATE_SERIES].some((bpm) => bpm !== null);
    if (this.plot) {
      this.plot.setData(data);
      if (this.plot.series[HEART_RATE_SERIES].show !== withHeartRate) this.plot.setSeries(HEART_RATE_SERIES, { show: withHeartRate });
      return;
    }
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
        { label: "heart rate", scale: "input", stroke: "#c0392b", width: 1, dash: [4, 3], show: withHeartRate },
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
