// A list read a page at a time, as the API's lists are: the first page, then the next one on
// "More" (following nextToken). refresh() reads again as many pages as are shown. A list that
// cannot be read says so in a line of its own (with "Try again"); the rest of the page stays.
import { h } from "./dom.js";

export class PagedList {
  // read(nextToken) -> Promise<{ items, nextToken }>; row(item) -> <li>; key(item): one row per key;
  // empty: what the list says when it has no items (what to do instead); what: "races", "classes";
  // view(items) -> the items to show of those read (default: all), as the page's clock has them.
  constructor({ read, row, key, empty, what, view = (items) => items, className = "rows" }) {
    Object.assign(this, { read, row, key, view });
    this.what = what;
    this.list = h("ul", { class: className });
    this.empty = h("p", { class: "muted empty" }, empty);
    this.error = h("p", { class: "error" });
    this.moreButton = h("button", { type: "button", class: "more", onclick: () => this.more() }, `More ${what}`);
    this.element = h("div", { class: "paged" }, this.list, this.empty, this.error, h("div", { class: "board-more" }, this.moreButton));
    this.empty.hidden = this.error.hidden = this.moreButton.hidden = true;
    this.pages = 1;
    this.nextToken = null;
    this.items = []; // the items read, one per key, in the order read
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
      this.items = this.unique([], items);
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
      this.items = this.unique(this.items, page.items);
      this.settle(page.nextToken, this.pages + 1);
    } catch (error) {
      if (generation === this.generation) this.fail(error);
    } finally {
      this.moreButton.disabled = false;
    }
  }

  // Draws the list again from the items read (their view may have changed: a race started).
  draw() {
    this.list.replaceChildren(...this.unique([], this.view(this.items)).map((item) => this.row(item)));
    this.empty.hidden = this.list.childElementCount > 0 || !this.error.hidden; // not read is not empty
  }

  // `items` followed by those of `more` whose key is not among them yet.
  unique(items, more) {
    const keys = new Set(items.map(this.key));
    return [...items, ...more.filter((item) => !keys.has(this.key(item)) && keys.add(this.key(item)))];
  }

  settle(nextToken, pages) {
    this.nextToken = nextToken;
    this.pages = pages;
    this.moreButton.hidden = !nextToken;
    this.error.hidden = true;
    this.draw();
  }

  fail(error) {
    this.error.replaceChildren(`Could not load the ${this.what} (${error.message || "no answer"}). `,
      h("button", { type: "button", class: "retry", onclick: () => this.refresh() }, "Try again"));
    this.error.hidden = false;
  }
}
