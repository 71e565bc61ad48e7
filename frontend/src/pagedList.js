// A list read a page at a time, as the API's lists are: the first page, then the next one on
// "More" (following nextToken). refresh() reads again as many pages as are shown. A list that
// cannot be read says so in a line of its own (with "Try again"); the rest of the page stays.
import { h } from "./dom.js";

export class PagedList {
  // read(nextToken) -> Promise<{ items, nextToken }>; row(item) -> <li>; key(item): one row per key;
  // empty: what the list says when it has no items (what to do instead); what: "races", "classes".
  constructor({ read, row, key, empty, what, className = "rows" }) {
    Object.assign(this, { read, row, key });
    this.what = what;
    this.list = h("ul", { class: className });
    this.empty = h("p", { class: "muted empty" }, empty);
    this.error = h("p", { class: "error" });
    this.moreButton = h("button", { type: "button", class: "more", onclick: () => this.more() }, `More ${what}`);
    this.element = h("div", { class: "paged" }, this.list, this.empty, this.error, h("div", { class: "board-more" }, this.moreButton));
    this.empty.hidden = this.error.hidden = this.moreButton.hidden = true;
    this.pages = 1;
    this.nextToken = null;
    this.shown = new Set();
    this.generation = 0; // a read started before the latest one is dropped
  }

  async refresh() {
    const generation = ++this.generation;
    try {
      const items = [];
      let nextToken = null;
      let pages = 0;
      do {
        const page = await this.read(nextToken);
        items.push(...page.items);
        nextToken = page.nextToken;
        pages += 1;
      } while (nextToken && pages < this.pages);
      if (generation !== this.generation) return;
      this.shown.clear();
      this.list.replaceChildren(...this.rows(items));
      this.settle(nextToken, pages);
    } catch (error) {
      if (generation !== this.generation) return;
      this.pages = 1; // a page token that no longer reads: start again from the first page
      this.fail(error);
    }
  }

  async more() {
    if (!this.nextToken) return;
    const generation = ++this.generation;
    this.moreButton.disabled = true;
    try {
      const page = await this.read(this.nextToken);
      if (generation !== this.generation) return;
      this.list.append(...this.rows(page.items));
      this.settle(page.nextToken, this.pages + 1);
    } catch (error) {
      if (generation === this.generation) this.fail(error);
    } finally {
      this.moreButton.disabled = false;
    }
  }

  rows(items) {
    const fresh = items.filter((item) => !this.shown.has(this.key(item)));
    fresh.forEach((item) => this.shown.add(this.key(item)));
    return fresh.map((item) => this.row(item));
  }

  settle(nextToken, pages) {
    this.nextToken = nextToken;
    this.pages = pages;
    this.moreButton.hidden = !nextToken;
    this.empty.hidden = this.list.childElementCount > 0;
    this.error.hidden = true;
  }

  fail(error) {
    this.error.replaceChildren(`Could not load the ${this.what} (${error.message || "no answer"}). `,
      h("button", { type: "button", class: "retry", onclick: () => this.refresh() }, "Try again"));
    this.error.hidden = false;
  }
}
