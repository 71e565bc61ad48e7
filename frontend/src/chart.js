// Per-second output (and cadence, resistance) of one racer in one race, drawn with uPlot.
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

const HEIGHT = 280;

export function columns(samples) {
  // samples: [[second, cadence, resistance, output], ...] -> uPlot's column arrays
  return [0, 3, 1, 2].map((index) => samples.map((sample) => sample[index]));
}

export class OutputChart {
  constructor(container) {
    this.container = container;
    this.plot = null;
    this.resize = () => this.plot?.setSize({ width: this.width(), height: HEIGHT });
    window.addEventListener("resize", this.resize);
  }

  width() {
    return Math.max(this.container.clientWidth, 280);
  }

  show(samples) {
    const data = columns(samples);
    if (this.plot) {
      this.plot.setData(data);
      return;
    }
    this.plot = new uPlot({
      width: this.width(),
      height: HEIGHT,
      scales: { x: { time: false } },
      axes: [
        { label: "second" },
        { label: "output", scale: "output" },
        { label: "rpm / %", scale: "input", side: 1, grid: { show: false } },
      ],
      series: [
        { label: "second" },
        { label: "output", scale: "output", stroke: "#e4572e", width: 2, fill: "rgba(228,87,46,0.08)" },
        { label: "cadence", scale: "input", stroke: "#2e86ab", width: 1 },
        { label: "resistance", scale: "input", stroke: "#76b041", width: 1 },
      ],
    }, data, this.container);
  }

  destroy() {
    window.removeEventListener("resize", this.resize);
    this.plot?.destroy();
  }
}
