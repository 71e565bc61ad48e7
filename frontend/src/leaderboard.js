// A leaderboard table that keeps one <tr> per racer across updates: each poll changes only
// the cells whose value changed and moves only the rows whose place changed, so 1,000
// rows update without rebuilding the table.
import { h } from "./dom.js";
import { rankText } from "./fairPlay.js";

const MOVEMENT_SHOWN_MS = 4000;

export class Leaderboard {
  // columns: [{ title, className?, value: (item) => string, href?: (item) => string,
  //   tag?: (item) => string | null (a small mark after the value: "under review"),
  //   cellClass?: (item) => string (more classes of the cell, e.g. the equipment's icon) }]
  // A row says its review: class review-pending | review-cleared | review-disqualified; a
  // disqualified ride's rank is "—".
  constructor(columns) {
    this.columns = columns;
    this.rows = new Map();
    this.body = h("tbody");
    this.element = h("table", { class: "board" },
      h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", { class: "move" }, ""),
        columns.map((column) => h("th", { class: column.className || "" }, column.title)))),
      this.body);
  }

  // mine: the signed-in racer's id (their row is marked); apart: a row shown below the page, not
  // after the row above it in rank (the racer's own row, far down the board).
  update(items, now = Date.now(), { mine = null, apart = null } = {}) {
    const seen = new Set();
    let cursor = this.body.firstChild;
    for (const item of items) {
      seen.add(item.racerId);
      const row = this.rows.get(item.racerId) || this.createRow(item);
      this.fill(row, item, now);
      row.tr.classList.toggle("mine", item.racerId === mine);
      row.tr.classList.toggle("apart", item.racerId === apart);
      if (row.tr === cursor) cursor = cursor.nextSibling;
      else this.body.insertBefore(row.tr, cursor);
    }
    for (const [racerId, row] of this.rows) {
      if (!seen.has(racerId)) {
        row.tr.remove();
        this.rows.delete(racerId);
      }
    }
  }

  // Forgets every row (another board in its place: no ▲/▼ between the two).
  clear() {
    this.body.replaceChildren();
    this.rows.clear();
  }

  createRow(item) {
    const rank = h("td", { class: "num rank" });
    const move = h("td", { class: "move" });
    const cells = this.columns.map((column) => {
      const target = column.href ? h("a", { href: column.href(item) }) : column.tag ? h("span") : null;
      const tag = column.tag ? h("small", { class: "tag" }) : null;
      return { td: h("td", { class: column.className || "" }, target, tag), target, tag, text: null, tagText: null };
    });
    const tr = h("tr", { "data-racer": item.racerId }, rank, move, cells.map((cell) => cell.td));
    const row = { tr, rank, move, cells, place: null, movedAt: 0, review: "" };
    this.rows.set(item.racerId, row);
    return row;
  }

  fill(row, item, now) {
    if (row.place != null && item.rank != null && row.place !== item.rank) {
      const change = row.place - item.rank;
      row.move.textContent = change > 0 ? `▲${change}` : `▼${-change}`;
      row.move.className = `move ${change > 0 ? "up" : "down"}`;
      row.movedAt = now;
    } else if (row.movedAt && now - row.movedAt > MOVEMENT_SHOWN_MS) {
      row.move.textContent = "";
      row.move.className = "move";
      row.movedAt = 0;
    }
    if (row.place !== item.rank || !row.rank.textContent) row.rank.textContent = rankText(item.rank);
    row.place = item.rank;
    const review = item.review || "";
    if (row.review !== review) {
      if (row.review) row.tr.classList.remove(`review-${row.review}`);
      if (review) row.tr.classList.add(`review-${review}`);
      row.review = review;
    }
    this.columns.forEach((column, index) => {
      const cell = row.cells[index];
      const text = column.value(item);
      if (column.cellClass) {
        const className = `${column.className || ""} ${column.cellClass(item)}`.trim();
        if (className !== cell.td.className) cell.td.className = className;
      }
      if (text !== cell.text) {
        (cell.target || cell.td).textContent = text;
        cell.text = text;
      }
      if (cell.tag) {
        const tag = column.tag(item) || "";
        if (tag !== cell.tagText) {
          cell.tag.textContent = tag;
          cell.tag.hidden = !tag;
          cell.tagText = tag;
        }
      }
    });
  }
}
