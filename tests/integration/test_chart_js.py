"""The ride's chart (frontend/src/chart.js), run in Node over a stand-in for uPlot that records what it is
asked to draw: an output ride's columns and series as ever; heart rate and power (contract v1.3) each a
series only for a ride that sent them, power on the output's axis; a mark on the power line sits at the
watts of its seconds."""

import json

import pytest

from .nodejs import FRONTEND, imported, package, printed, run

# uPlot as chart.js imports it (the package and its stylesheet), recording each chart's options and data.
UPLOT = """export default class uPlot {
  constructor(options, data, container) { this.options = options; this.data = data; uPlot.made.push(this); }
  setData(data) { this.data = data; }
  setSize() {}
  destroy() { this.destroyed = true; }
}
uPlot.made = [];
"""


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    folder = package(tmp_path_factory.mktemp("chart_js"), [FRONTEND / "chart.js"])
    stub = folder / "node_modules" / "uplot"
    (stub / "dist").mkdir(parents=True)
    (stub / "package.json").write_text(json.dumps({"name": "uplot", "type": "module", "exports": {
        ".": "./index.js", "./dist/uPlot.min.css": "./dist/css.js"}}))
    (stub / "index.js").write_text(UPLOT)
    (stub / "dist" / "css.js").write_text("export {};\n")
    setup = "globalThis.window = { addEventListener() {}, removeEventListener() {} };"
    modules = imported(folder, chart="chart.js", uplot="node_modules/uplot/index.js")
    return lambda body: run(setup, modules, printed(body))


def drawn(js, samples, marks=()):
    """What the chart draws of ``samples`` with ``marks``: its data, and its series' and axes' labels and scales."""
    return js(f"""const c = new chart.OutputChart({{ clientWidth: 390 }}, {{ marks: {json.dumps(list(marks))} }});
      c.show({json.dumps(samples)});
      const plot = uplot.default.made.at(-1);
      return {{ data: plot.data, series: plot.options.series.map((s) => [s.label, s.scale ?? null]),
               axes: plot.options.axes.map((a) => a.label), made: uplot.default.made.length }};""")


# [second, cadence, resistance, output, heartRate, power]
OUTPUT_RIDE = [[0, 80, 50, 132.25, None], [1, 90, 50, 143.75, None], [3, 95, 50, 149.5, None]]
POWER_RIDE = [[0, 80, 50, 132.25, None, 210], [1, 90, 50, 143.75, 140, 1500], [2, 90, 50, 143.75, None, None],
              [3, 95, 50, 149.5, 141, 1520]]


def test_an_output_rides_chart_is_as_ever(js):
    got = drawn(js, OUTPUT_RIDE, [{"label": "output-held", "on": "output", "seconds": [1, 3]},
                                  {"label": "cadence-held", "on": "cadence", "seconds": [0]}])
    assert got["axes"] == ["second", "output", "rpm / %"]
    assert got["series"] == [["second", None], ["output", "output"], ["cadence", "input"], ["resistance", "input"],
                             ["output-held", "output"], ["cadence-held", "input"]]
    assert got["data"] == [[0, 1, 3], [132.25, 143.75, 149.5], [80, 90, 95], [50, 50, 50], [None, 143.75, 149.5],
                           [80, None, None]]


def test_a_ride_with_power_draws_its_watts_on_the_outputs_axis_and_marks_sit_on_them(js):
    got = drawn(js, POWER_RIDE, [{"label": "power-minute", "on": "power", "seconds": [1, 2, 3], "color": "#b3001b"},
                                 {"label": "cadence-swing", "on": "cadence", "seconds": [1]}])
    assert got["axes"] == ["second", "output / W", "rpm / % / bpm"]
    assert got["series"] == [["second", None], ["output", "output"], ["cadence", "input"], ["resistance", "input"],
                             ["heart rate", "input"], ["power (W)", "output"], ["power-minute", "output"],
                             ["cadence-swing", "input"]]
    # a second without watts is a gap in the line and has no mark
    assert got["data"][5] == [210, 1500, None, 1520]
    assert got["data"][6:] == [[None, 1500, None, 1520], [None, 90, None, None]]


def test_the_chart_is_drawn_again_when_the_first_watts_arrive(js):
    got = js(f"""const c = new chart.OutputChart({{ clientWidth: 390 }});
      c.show({json.dumps(OUTPUT_RIDE)});
      const first = uplot.default.made.at(-1);
      c.show({json.dumps(OUTPUT_RIDE[:2])});
      const same = uplot.default.made.at(-1) === first;
      c.show({json.dumps(POWER_RIDE)});
      const again = uplot.default.made.at(-1);
      return {{ same, destroyed: first.destroyed === true, power: again.options.series.some((s) => s.label === "power (W)"),
               columns: [chart.columns({json.dumps(OUTPUT_RIDE)}).length, chart.columns({json.dumps(POWER_RIDE)}).length] }};""")
    assert got == {"same": True, "destroyed": True, "power": True, "columns": [4, 6]}
