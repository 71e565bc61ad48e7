// The header's account corner: "Reviews" for admins (pages/reviews.js), who is signed in (their display name, else their email; a link to
// their account page) and "Sign out", or "Sign in". Under the header, a notice about the sign-in
// when there is one (signed out because the session ended, sign-in cancelled, not available).
import { api } from "./api.js";
import { auth } from "./auth.js";
import { h } from "./dom.js";

// The way back, under the header ("Home / Hill climb"): each place after the first says " / " before it.
// A place that is empty (the race's class not read yet, or nothing found at the page's address: a 404)
// is hidden with its " / " (style.css): never a dangling "Home /".
export const crumbs = (...places) => places.map((place, index) => h("span", { class: "crumb" }, index ? " / " : null, place));

export function accountHeader(header) {
  const corner = h("div", { class: "account" });
  const text = h("span");
  const notice = h("div", { class: "notice", role: "status", hidden: true }, text,
    h("button", { type: "button", class: "dismiss", "aria-label": "Dismiss", onclick: () => auth.dismiss() }, "×"));
  header.append(corner);
  header.after(notice);

  let nameRead = null; // the racer whose display name was read
  function readName(identity) {
    if (nameRead === identity.racerId) return;
    nameRead = identity.racerId;
    api.racerResults(identity.racerId)
      .then((racer) => auth.setName(identity.racerId, racer.name))
      .catch(() => {}); // 404: no name yet (the email shows)
  }

  function draw() {
    const identity = auth.identity;
    if (identity) {
      readName(identity);
      corner.replaceChildren(
        identity.admin ? h("a", { class: "reviews-link", href: "#/reviews", title: "Rides waiting for an admin's review" }, "Reviews") : "",
        h("a", { class: "who", href: "#/me", title: "Your account" }, auth.name || identity.email || "Your account"),
        h("button", { type: "button", class: "sign-out", onclick: () => auth.signOut() }, "Sign out"));
    } else {
      nameRead = null;
      corner.replaceChildren(h("button", { type: "button", class: "sign-in", onclick: () => auth.signIn() }, "Sign in"));
    }
    text.textContent = auth.notice || "";
    notice.hidden = !auth.notice;
  }

  auth.onChange(draw);
  draw();
}
