// Per-second output (and cadence, resistance, heart rate) of one racer in one race, drawn with uPlot;
// optionally with marked seconds (the reviews page: where a ride broke a rule) as dots on their own
// series. Heart rate (bpm, on the rpm / % axis: 30-250 sits in its 0-300) is a series only for a ride
// that sent one (the chart is drawn again when the first arrives); its seconds without one are gaps.
// Power (W, contract v1.3: a power class's score, and any trainer's that measures it) likewise, on the
// output's axis ("output / W": a rider's watts and their output are of a size, 100-400); a ride without
// power draws as ever.
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

const HEIGHT = 280;

// Which of a sample's values a mark sits on (samples: [second, cadence, resistance, output, heartRate,
// power]), and on which scale.
const MARKED_VALUE = { output: 3, cadence: 1, power: 5 };
const MARKED_SCALE = { output: "output", cadence: "input", power: "output" };

export const hasHeartRate = (samples) => samples.some((sample) => sample[4] != null);
export const hasPower = (samples) => samples.some((sample) => sample[5] != null);

// samples: [[second, cadence, resistance, output, heartRate, power], ...] -> uPlot's column arrays
// (second, output, cadence, resistance, then heart rate if the ride sent any, then power if it sent any,
// null at a second without); marks: [{ label, on: "output"|"cadence"|"power", seconds: [second, ...],
// color? }] -> a column each, the value at a marked second and null elsewhere.
export function columns(samples, marks = []) {
  const values = [0, 3, 1, 2, ...(hasHeartRate(samples) ? [4] : []), ...(hasPower(samples) ? [5] : [])];
  const data = values.map((index) => samples.map((sample) => sample[index] ?? null));
  for (const mark of marks) {
    const seconds = new Set(mark.seconds);
    data.push(samples.map((sample) => (seconds.has(sample[0]) ? sample[MARKED_VALUE[mark.on] ?? 3] ?? null : null)));
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
    const withPower = hasPower(samples);
    if (this.plot && this.withHeartRate === withHeartRate && this.withPower === withPower) {
      this.plot.setData(data);
      return;
    }
    this.plot?.destroy();
    this.withHeartRate = withHeartRate;
    this.withPower = withPower;
    this.plot = new uPlot({
      width: this.width(),
      height: HEIGHT,
      scales: { x: { time: false } },
      axes: [
        { label: "second" },
        { label: withPower ? "output / W" : "output", scale: "output" },
        { label: withHeartRate ? "rpm / % / bpm" : "rpm / %", scale: "input", side: 1, grid: { show: false } },
      ],
      series: [
        { label: "second" },
        { label: "output", scale: "output", stroke: "#e4572e", width: 2, fill: "rgba(228,87,46,0.08)" },
        { label: "cadence", scale: "input", stroke: "#2e86ab", width: 1 },
        { label: "resistance", scale: "input", stroke: "#76b041", width: 1 },
        ...(withHeartRate ? [{ label: "heart rate", scale: "input", stroke: "#c0392b", width: 1, dash: [4, 3] }] : []),
        ...(withPower ? [{ label: "power (W)", scale: "output", stroke: "#7a3fa0", width: 2 }] : []),
        ...this.marks.map((mark) => ({
          label: mark.label, scale: MARKED_SCALE[mark.on] ?? "output", stroke: mark.color || "#b3001b", width: 0,
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
