// The ghost on the ride page: the line "Ghost: <name> (<whose>) · <gap>" among the riders around, and
// where the ghost is on the field's strip (rideField.js draws the mark). The ghost is the one picked for
// this race (ghostPicker.js), its scores from its race's replay, read once. The gap is ghost.js's: the
// rider's board row (its score and lastSecond, the server's) against the ghost after that same second
// of its race; it moves as the board does, each second (in a power class, in kJ). The browser's clock
// decides nothing here.
import { h } from "../dom.js";
import { gapText, gapTo } from "../ghost.js";
import { ghostFor, savedGhost, whose } from "./ghostPicker.js";

const RETRY_MS = 10_000; // a ghost whose race could not be read (not settled yet, no connection) is read again after this

export function rideGhost(raceId, racerId) {
  const name = h("strong", { class: "ghost-name" });
  const which = h("span", { class: "ghost-which" });
  const gap = h("strong", { class: "ghost-gap" });
  const sep = h("span", { class: "ghost-sep" }, " · ");
  const line = h("p", { class: "ghost-line", hidden: true }, h("span", { class: "ghost-swatch", "aria-hidden": "true" }),
    h("span", { class: "ghost-who" }, "Ghost: ", name, " ", which), sep, gap);
  let choice = null;
  let ghost = null;
  let problem = null;
  let failedAt = 0;
  let loading = 0;
  let latest = null;

  function draw() {
    line.hidden = !choice;
    if (!choice) return;
    if (!ghost) {
      name.textContent = "";
      which.textContent = problem ? "" : "(reading its race…)";
      gap.textContent = problem ? `cannot be had: ${problem}` : "";
      sep.hidden = true;
      line.classList.toggle("error", Boolean(problem));
      return;
    }
    line.classList.remove("error");
    sep.hidden = false;
    name.textContent = ghost.name;
    which.textContent = `(${whose(choice, ghost)})`;
    const apart = latest && gapTo(ghost, latest.own, { race: latest.race, finished: latest.over });
    line.dataset.second = apart ? String(apart.second) : "";
    line.dataset.gap = apart ? String(apart.gap) : "";
    const text = apart && gapText(apart.gap, latest.metric); // kJ in a power class
    if (apart) gap.textContent = apart.final ? `finished ${text}` : text;
    else gap.textContent = latest?.started ? "from your first second" : "rides with you from the start";
  }

  // The choice kept for this race, and its ghost read (again, after the racer picks another).
  function load() {
    choice = racerId ? savedGhost(raceId, racerId) : null;
    ghost = problem = null;
    const at = (loading += 1);
    if (choice) {
      ghostFor(choice).then((found) => {
        if (at === loading) ghost = found;
      }, (error) => {
        if (at !== loading) return;
        problem = error.message;
        failedAt = Date.now();
      }).finally(draw);
    }
    draw();
  }
  load();

  return {
    line,
    reload: load,
    // The ride's latest: the race, the racer's own row, whether it is over, whether it has started, the
    // class's metric ("power": the gap in kJ).
    show(panel) {
      latest = panel;
      if (problem && Date.now() - failedAt > RETRY_MS) load();
      else draw();
    },
    // The ghost's place for the field's strip: its score after the second the gap compares, or null.
    onStrip() {
      const apart = ghost && latest && gapTo(ghost, latest.own, { race: latest.race, finished: latest.over });
      return apart ? { score: apart.ghostScore } : null;
    },
  };
}
