// The ride's sound cues: a short beep at 3, 2 and 1, a long higher one at the start, three rising ones
// at the finish. Off unless the racer turns them on; the choice is kept in localStorage
// ("alleycat.sound"). Tones are made with the Web Audio API (an OscillatorNode through a GainNode):
// no sound file to fetch. Browsers start an AudioContext "suspended" until the page has had a user
// gesture (Chrome's autoplay policy), so the context is made or resumed on a click or a key: the
// toggle itself, or, after a reload with sound on, the racer's next click or key.
import { h } from "./dom.js";

const KEY = "alleycat.sound";
// kind -> [frequency Hz, start s, length s] of each tone
const TONES = {
  count: [[660, 0, 0.15]],
  go: [[990, 0, 0.6]],
  finish: [[660, 0, 0.18], [830, 0.2, 0.18], [990, 0.4, 0.5]],
};

export function soundCues() {
  let on = localStorage.getItem(KEY) === "on";
  let context = null;

  const wake = () => {
    if (!on) return;
    const Audio = globalThis.AudioContext || globalThis.webkitAudioContext;
    if (!context && Audio) context = new Audio();
    if (context?.state === "suspended") context.resume().catch(() => {});
  };
  const box = h("input", { type: "checkbox", class: "sound-on", onchange: () => {
    on = box.checked;
    if (on) localStorage.setItem(KEY, "on");
    else localStorage.removeItem(KEY);
    wake();
  } });
  box.checked = on;
  const element = h("label", { class: "sound-toggle" }, box, " Sound cues",
    h("small", { class: "muted" }, " (3-2-1, go, finish)"));
  document.addEventListener("pointerdown", wake);
  document.addEventListener("keydown", wake);

  return {
    element,
    play(kind) {
      if (!on || !context || context.state !== "running" || !TONES[kind]) return;
      const now = context.currentTime;
      for (const [frequency, start, length] of TONES[kind]) {
        const tone = context.createOscillator();
        const volume = context.createGain();
        tone.frequency.value = frequency;
        volume.gain.setValueAtTime(0.2, now + start);
        volume.gain.exponentialRampToValueAtTime(0.001, now + start + length); // fades out: no click at the end
        tone.connect(volume).connect(context.destination);
        tone.start(now + start);
        tone.stop(now + start + length);
      }
    },
    stop() {
      document.removeEventListener("pointerdown", wake);
      document.removeEventListener("keydown", wake);
      context?.close().catch(() => {});
    },
  };
}
