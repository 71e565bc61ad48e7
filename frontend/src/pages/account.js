// The signed-in racer's own page (#/me): their display name (set here), their races, and two-step
// sign-in (a code from an authenticator app, which admin tools need). Signed out: the way to sign in.
import { api } from "../api.js";
import { auth } from "../auth.js";
import { classNames } from "../classNames.js";
import { h, link, score } from "../dom.js";
import { equipmentClass, equipmentLabel, reviewLabel, reviewReason } from "../fairPlay.js";
import { groupedSecret, nameProblem, otpauthUri, totpCode } from "../fields.js";
import { qrSvg } from "../qr.js";
import { raceHref, raceLabel } from "../races.js";
import { totpEnabled, userPool } from "../userpool.js";

const racerHref = (racerId, raceId) => `#/racers/${encodeURIComponent(racerId)}${raceId ? `/${encodeURIComponent(raceId)}` : ""}`;

function signedOut() {
  const text = h("p", {}, "Sign in to set the name racers see on the boards, and to see your races in one place.");
  const button = h("button", { type: "button", class: "primary", onclick: () => auth.signIn() }, "Sign in");
  const box = h("div", { class: "card" }, text, h("p", {}, button),
    h("p", { class: "muted" }, "New here? The sign-in page lets you make an account with your email address."));
  auth.available().then((available) => {
    if (available) return;
    text.textContent = "Sign-in is not available on this site right now. "
      + "Races, boards and racers' pages are open to everyone without it.";
    button.parentElement.remove();
    box.lastChild.remove();
  });
  return box;
}

// The display name: what the API has (none yet: a 404 for the racer), set with PUT /racers/{sub}.
// unread: the racer could not be read (not a 404): their name is not known.
function nameSection(identity, racer, unread) {
  const input = h("input", { id: "display-name", name: "name", type: "text", maxlength: "200", autocomplete: "nickname",
    required: "", "aria-describedby": "name-message" });
  input.value = racer?.name || "";
  const message = h("p", { id: "name-message", class: racer ? "muted" : "hint" },
    racer ? `Racers see you as “${racer.name}”.`
      : unread ? "Your name could not be read just now: saving one sets it."
        : "You have not set a name yet: race boards show it next to your score.");
  const save = h("button", { type: "submit", class: "primary" }, "Save");
  const form = h("form", { class: "field-row", novalidate: "" },
    h("label", { for: "display-name" }, "Display name"), h("div", { class: "inline" }, input, save));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const problem = nameProblem(input.value);
    if (problem) {
      message.className = "error";
      message.textContent = problem;
      input.focus();
      return;
    }
    save.disabled = true;
    try {
      const saved = await api.putRacer(identity.racerId, input.value.trim());
      input.value = saved.name;
      auth.setName(identity.racerId, saved.name);
      message.className = "saved";
      message.textContent = `Saved: racers see you as “${saved.name}”.`;
    } catch (error) {
      message.className = "error";
      message.textContent = `Not saved: ${error.message}`;
    } finally {
      save.disabled = false;
    }
  });
  return h("section", { class: "card name" }, h("h2", {}, "Your name"), form, message);
}

async function racesSection(identity, racer) {
  const section = h("section", { class: "card my-races" }, h("h2", {}, "My races"));
  const own = racer ? h("p", {}, link(racerHref(identity.racerId), "Your racer page →")) : null; // none before a name
  if (!racer || !racer.items.length) {
    section.append(h("p", { class: "muted" }, "No races yet. Join one from a race's page; your results show here."),
      ...(own ? [own] : []));
    return section;
  }
  const names = await classNames(racer.items.map((item) => item.classId));
  section.append(
    h("table", { class: "results" },
      h("thead", {}, h("tr", {}, h("th", { class: "name" }, "Race"), h("th", { class: "num" }, "Score"),
        h("th", { class: "num" }, "Rank"), h("th", { class: "num" }, ""))),
      h("tbody", {}, racer.items.map((item) => h("tr", {},
        h("td", { class: "name" }, link(raceHref(item.raceId), raceLabel(item, names[item.classId])),
          " ", h("small", { class: `equipment ${equipmentClass(item.equipment)}` }, equipmentLabel(item.equipment)),
          reviewLabel(item.review) ? h("small", { class: `tag review-${item.review}` }, reviewLabel(item.review)) : null,
          reviewReason(item.review, item.rules, item.note) ? h("small", { class: `why review-${item.review}` },
            reviewReason(item.review, item.rules, item.note)) : null),
        h("td", { class: "num" }, score(item.score)),
        h("td", { class: "num" }, item.review === "disqualified" ? "—" : item.rank == null ? item.status : String(item.rank)),
        h("td", { class: "num" }, link(racerHref(identity.racerId, item.raceId), "chart")))))),
    ...(own ? [own] : []));
  return section;
}

// Two-step sign-in: on or off (GetUser); turning it on: a secret for an authenticator app
// (AssociateSoftwareToken), a code from the app (VerifySoftwareToken), then the preference.
function twoStepSection(identity) {
  const state = h("span", { class: "status" }, "…");
  const body = h("div");
  const section = h("section", { class: "card two-step" }, h("h2", {}, "Two-step sign-in ", state), body);
  const why = h("p", { class: "muted" }, "With two-step sign-in on, signing in asks for your password and a 6-digit code "
    + "from an authenticator app on your phone. Racers don't need it; admin tools do: an admin's rights "
    + "come only once it is on.");
  const failed = (error) => h("p", { class: "error" }, error.message);

  function showOn(justNow) {
    state.textContent = "on";
    state.className = "status on";
    if (!justNow) {
      body.replaceChildren(h("p", {}, "Signing in asks for your password and a code from your authenticator app."));
      return;
    }
    body.replaceChildren(
      h("p", {}, "Two-step sign-in is on. Sign out and sign in again: from now on, signing in asks for a code from "
        + `your app${identity.admin ? ", and your admin tools work with that sign-in" : ""}.`),
      h("p", {}, h("button", { type: "button", class: "primary", onclick: () => auth.signOut() }, "Sign out now")));
  }

  function showOff() {
    state.textContent = "off";
    state.className = "status off";
    const start = h("button", { type: "button", class: "primary", onclick: setUp }, "Set up two-step sign-in");
    body.replaceChildren(why, h("p", {}, start));
  }

  async function setUp(event) {
    event.target.disabled = true;
    let secret;
    try {
      secret = (await userPool.associateSoftwareToken()).SecretCode;
    } catch (error) {
      event.target.disabled = false;
      body.append(failed(error));
      return;
    }
    const uri = otpauthUri(identity.email || identity.username, secret);
    const copied = h("span", { class: "muted", role: "status" });
    const copy = h("button", { type: "button", onclick: () => navigator.clipboard.writeText(secret.replace(/\s+/g, ""))
      .then(() => { copied.textContent = "Copied."; }, () => { copied.textContent = "Select the key and copy it."; }) }, "Copy key");
    const code = h("input", { id: "totp-code", name: "code", type: "text", inputmode: "numeric", autocomplete: "one-time-code",
      maxlength: "7", placeholder: "123456", "aria-describedby": "totp-message" });
    const message = h("p", { id: "totp-message", class: "muted" });
    const turnOn = h("button", { type: "submit", class: "primary" }, "Turn on");
    const form = h("form", { class: "field-row", novalidate: "" },
      h("label", { for: "totp-code" }, "2. Enter the 6-digit code the app shows"), h("div", { class: "inline" }, code, turnOn));
    form.addEventListener("submit", async (submitted) => {
      submitted.preventDefault();
      const value = totpCode(code.value);
      if (!value) {
        message.className = "error";
        message.textContent = "The code is the 6 digits your authenticator app shows for Alleycat.";
        code.focus();
        return;
      }
      turnOn.disabled = true;
      try {
        await userPool.verifySoftwareToken(value);
        await userPool.preferSoftwareToken();
        showOn(true);
      } catch (error) {
        message.className = "error";
        message.textContent = ["CodeMismatchException", "EnableSoftwareTokenMFAException"].includes(error.type)
          ? "That code does not match: enter the code the app shows now (it changes every 30 seconds)."
          : `Not turned on: ${error.message}`;
        turnOn.disabled = false;
      }
    });
    body.replaceChildren(why,
      h("p", {}, "1. Add Alleycat to an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, …): "
        + "scan this code with the app,"),
      h("div", { class: "qr-box" }, qrSvg(uri, "QR code of the setup link for your authenticator app")),
      h("p", {}, "or on the phone that has the app, ", h("a", { href: uri, class: "otpauth" }, "open it in the app"),
        "; or type in this key:"),
      h("p", { class: "secret-row" }, h("code", { class: "secret" }, groupedSecret(secret)), " ", copy, " ", copied),
      h("details", { class: "uri" }, h("summary", {}, "The setup link as text"), h("code", {}, uri)),
      form, message);
    code.focus();
  }

  userPool.getUser().then((user) => (totpEnabled(user) ? showOn(false) : showOff()), (error) => {
    state.textContent = "";
    body.replaceChildren(why, failed(error));
  });
  return section;
}

export function accountPage() {
  const title = h("h1", {}, "Your account");
  const element = h("section", { class: "account-page" }, title);
  let shown; // the racer the page shows (undefined: not drawn yet)

  async function draw() {
    const identity = auth.identity;
    if (shown === (identity?.racerId ?? null)) return;
    shown = identity?.racerId ?? null;
    if (!identity) {
      title.replaceChildren("Your account");
      element.replaceChildren(title, signedOut());
      return;
    }
    title.replaceChildren("Your account", ...(identity.admin ? [" ", h("span", { class: "status admin" }, "admin")] : []));
    const who = h("p", { class: "muted signed-in-as" }, "Signed in as ", h("strong", {}, identity.email || identity.username));
    const loading = h("p", { class: "muted" }, "Loading…");
    element.replaceChildren(title, who, loading);
    let racer = null;
    let problem = null;
    try {
      racer = await api.racerResults(identity.racerId);
    } catch (error) {
      if (error.status !== 404) problem = error; // 404: no name set yet
    }
    if (shown !== identity.racerId) return; // signed out (or in as someone else) meanwhile
    const races = problem ? h("p", { class: "error" }, `Could not load your races: ${problem.message}`)
      : await racesSection(identity, racer);
    if (shown !== identity.racerId) return;
    element.replaceChildren(title, who, nameSection(identity, racer, Boolean(problem)), races, twoStepSection(identity));
  }

  draw();
  const stop = auth.onChange(() => draw());
  return { element, stop, crumbs: [link("#/", "Home"), " / ", "Account"] };
}
