"""`make bench-replay-frames`: the replay of a 1,000-racer, 300-second race on a phone — Debian's Chromium at 390×844
(3× pixels, touch), its CPU slowed 4× (CDP Emulation.setCPUThrottlingRate), the built site (frontend/dist)
with a synthetic replay and race served by route interception (no stack). Prints: the replay's JSON parse,
its preparation (replay.js), the time of a replayed second (compute and draw: the page's "replay-step"
measure, and a scrub's step with style and layout), frames a second while it plays at 20×. A benchmark:
figures for docs/replay.md, never a test. ``BENCH_THROTTLE`` sets the slowdown (1: none)."""

from __future__ import annotations

import json
import mimetypes
import os
import random
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "frontend" / "dist"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
SITE = "http://replay.bench"
RACE_ID, CLASS_ID = "bench-replay-race", "bench-replay-class"
RACERS, SECONDS = 1000, 300
THROTTLE = float(os.environ.get("BENCH_THROTTLE", "4"))
PARSES = 5


def synthetic_replay(rng: random.Random) -> dict:
    """1,000 racers with outputs as the contract makes them from the simulator's ranges (30–90 rpm, 33–86 %),
    each rider's cadence drifting: cumulative scores rounded to 1 decimal, racers in final board order."""
    rows = []
    for n in range(RACERS):
        cadence, resistance = rng.uniform(30, 90), rng.uniform(33, 86)
        total, scores = 0.0, []
        for _ in range(SECONDS):
            cadence = min(90.0, max(30.0, cadence + rng.uniform(-3, 3)))
            total += round((round(cadence) + 35) * (round(resistance) + 65) / 100, 4)
            scores.append(round(total, 1))
        rows.append((f"racer-{n:04d}", f"Racer {n}", scores))
    rows.sort(key=lambda row: (-row[2][-1], row[0]))
    return {"raceId": RACE_ID, "classId": CLASS_ID, "startsAt": "2026-11-27T18:00:00Z", "durationSeconds": SECONDS,
            "racers": [{"racerId": racer_id, "name": name, "equipment": "bike", "rank": rank}
                       for rank, (racer_id, name, _) in enumerate(rows, start=1)],
            "step": 1, "scores": [scores for _, _, scores in rows]}


def answers(replay: dict) -> dict[str, dict]:
    """path -> the JSON the API would answer: the race, its final board's top 100, its class, the replay."""
    board = {"raceId": RACE_ID, "classId": CLASS_ID, "status": "finished", "items": [
        {"rank": racer["rank"], "racerId": racer["racerId"], "name": racer["name"], "score": scores[-1],
         "lastSecond": SECONDS - 1, "equipment": "bike", "review": None}
        for racer, scores in zip(replay["racers"][:100], replay["scores"][:100], strict=True)]}
    race = {"raceId": RACE_ID, "classId": CLASS_ID, "startsAt": replay["startsAt"], "durationSeconds": SECONDS,
            "status": "finished", "racerCount": RACERS}
    return {f"/races/{RACE_ID}": race, f"/races/{RACE_ID}/leaderboard": board, f"/races/{RACE_ID}/replay": replay,
            f"/classes/{CLASS_ID}": {"classId": CLASS_ID, "name": "Bench hill", "description": ""}, "/config.json": {}}


def serve(route, payloads: dict[str, bytes]) -> None:
    path = route.request.url.removeprefix(SITE).split("?")[0].split("#")[0]
    if path in payloads:
        route.fulfill(status=200, content_type="application/json", body=payloads[path])
        return
    file = DIST / (path.lstrip("/") or "index.html")
    if file.is_file():
        route.fulfill(status=200, content_type=mimetypes.guess_type(file.name)[0] or "application/octet-stream",
                      body=file.read_bytes())
        return
    route.fulfill(status=404, content_type="application/json", body=b'{"message": "not here"}')


SCRUB = """async () => {
  const scrubber = document.querySelector('.replay .scrubber');
  const times = [];
  for (let k = 0; k < Number(scrubber.max) + 1; k += 1) {
    const started = performance.now();
    scrubber.value = String(k);
    scrubber.dispatchEvent(new Event('input'));
    void document.body.offsetHeight; // style and layout, as the frame would
    times.push(performance.now() - started);
  }
  return times;
}"""

IDLE = """async () => {
  const started = performance.now();
  let frames = 0;
  await new Promise((done) => {
    const frame = (now) => {
      frames += 1;
      if (now - started < 3000) requestAnimationFrame(frame);
      else done();
    };
    requestAnimationFrame(frame);
  });
  return frames / ((performance.now() - started) / 1000);
}"""

PLAY = """async () => {
  performance.clearMeasures('replay-step');
  const scrubber = document.querySelector('.replay .scrubber');
  scrubber.value = '0';
  scrubber.dispatchEvent(new Event('input'));
  document.querySelector(".replay .speed[data-speed='20']").click();
  const gaps = [];
  let started = performance.now();
  const long = []; // frames of 50 ms or more (Long Animation Frames): where their time went
  const observer = new PerformanceObserver((list) => {
    for (const frame of list.getEntries()) {
      if (frame.startTime < started) continue; // the scrub before (one long task), reported late
      const end = frame.startTime + frame.duration;
      long.push({ duration: frame.duration, script: frame.scripts.reduce((sum, script) => sum + script.duration, 0),
        layout: frame.styleAndLayoutStart ? end - frame.styleAndLayoutStart : 0,
        render: frame.renderStart ? end - frame.renderStart : 0, blocking: frame.blockingDuration });
    }
  });
  observer.observe({ type: 'long-animation-frame' });
  let last = null;
  started = performance.now();
  document.querySelector('.replay button.play').click();
  await new Promise((done) => {
    const frame = (now) => {
      if (last !== null) gaps.push(now - last);
      last = now;
      if (document.querySelector('.replay').dataset.playing === 'true') requestAnimationFrame(frame);
      else done();
    };
    requestAnimationFrame(frame);
  });
  const seconds = (performance.now() - started) / 1000;
  await new Promise((done) => setTimeout(done, 100)); // the last frames' entries
  observer.disconnect();
  return { seconds, frames: gaps.length, gaps, long, steps: performance.getEntriesByName('replay-step').map((m) => m.duration) };
}"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    from playwright.sync_api import sync_playwright

    assert (DIST / "index.html").exists(), "no frontend/dist: `make frontend` builds it"
    replay = synthetic_replay(random.Random(43))
    payloads = {path: json.dumps(body, separators=(",", ":")).encode() for path, body in answers(replay).items()}
    replay_bytes = len(payloads[f"/races/{RACE_ID}/replay"])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True,
                                      has_touch=True, locale="en-GB")
        context.route("**/*", lambda route: serve(route, payloads))
        page = context.new_page()
        page.set_default_timeout(120_000)
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
        page.goto(f"{SITE}/#/races/{RACE_ID}/replay")
        page.wait_for_selector(".replay-view:not([hidden])")
        prepare = page.evaluate("() => performance.getEntriesByName('replay-prepare')[0].duration")
        parses = page.evaluate(f"""async () => {{
          const text = await (await fetch('/races/{RACE_ID}/replay')).text();
          const times = [];
          for (let n = 0; n < {PARSES}; n += 1) {{
            const started = performance.now();
            JSON.parse(text);
            times.push(performance.now() - started);
          }}
          return times;
        }}""")
        idle = page.evaluate(IDLE)
        scrub = page.evaluate(SCRUB)
        played = page.evaluate(PLAY)
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        browser.close()
    print(f"replay of {RACERS:,} racers × {SECONDS} s: {replay_bytes / 1e6:.2f} MB of JSON; "
          f"phone 390×844, CPU slowed {THROTTLE:g}×")
    print(f"  parse (JSON.parse, median of {PARSES}): {statistics.median(parses):.0f} ms")
    print(f"  prepare (replay.js: typed array, leaders): {prepare:.0f} ms")
    print(f"  a replayed second while playing (board sort, movement, bands, DOM): median {statistics.median(played['steps']):.1f} ms, "
          f"p95 {percentile(played['steps'], 0.95):.1f} ms, max {max(played['steps']):.1f} ms ({len(played['steps'])} seconds)")
    print(f"  a scrubbed second with style and layout: median {statistics.median(scrub):.1f} ms, "
          f"p95 {percentile(scrub, 0.95):.1f} ms, max {max(scrub):.1f} ms ({len(scrub)} seconds)")
    print(f"  playing at 20×: {played['frames'] / played['seconds']:.1f} frames a second over {played['seconds']:.1f} s; "
          f"frame interval p95 {percentile(played['gaps'], 0.95):.1f} ms, max {max(played['gaps']):.1f} ms "
          f"(the page standing still: {idle:.1f} frames a second)")
    long = played["long"]
    if long:
        print(f"  frames of 50 ms or more while playing: {len(long)}, median {statistics.median(f['duration'] for f in long):.0f} ms: "
              f"script {statistics.median(f['script'] for f in long):.0f} ms, rendering {statistics.median(f['render'] for f in long):.0f} ms "
              f"(of it style and layout {statistics.median(f['layout'] for f in long):.0f} ms)")
    print(f"  page width {wide} px (viewport 390)")


if __name__ == "__main__":
    main()
