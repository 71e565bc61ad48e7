// Live race boards pushed over AWS AppSync Events: the deployed Event API, or the local stack's
// stand-in, which speaks the same protocol (local/eventapi.py). Where to connect comes from
// /config.json; without it (or while the socket is down) the race page polls as before.
//
// Protocol (docs.aws.amazon.com/appsync/latest/eventapi/event-api-websocket-protocol.html):
// subprotocols "aws-appsync-event-ws" and "header-<base64url(JSON {host, x-api-key})>";
// connection_init -> connection_ack {connectionTimeoutMs}; subscribe {id, channel, authorization}
// -> subscribe_success | subscribe_error; data {id, event: "<json>"}; ka; unsubscribe.

const PROTOCOL = "aws-appsync-event-ws";
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;
const WATCHDOG_MS = 5_000;
const STALE_REREAD_MS = 5_000; // rows a message left out ("more"): re-read the board at most this often

let config = null;

// The site's /config.json, asked for once per page: `{}` while it cannot be had (no answer, an
// answer that is not OK, or not JSON). A failure is not kept: the next call asks again, so a
// phone whose first fetch blipped gets its sign-in settings (and live boards) on a later one.
export function siteConfig() {
  if (!config) {
    const asked = fetch("/config.json", { cache: "no-store" })
      .then((response) => {
        if (!response.ok) throw new Error(`/config.json answered ${response.status}`);
        return response.json();
      })
      .catch(() => {
        if (config === asked) config = null;
        return {};
      });
    config = asked;
  }
  return config;
}

function base64url(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function newId() {
  return globalThis.crypto?.randomUUID?.() || `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

// One subscription on its own connection, kept up: reconnects with jittered exponential backoff and
// closes a connection that has been silent (no ka, no data) for longer than connectionTimeoutMs.
// onLive() when subscribed (again: the caller re-reads what it may have missed), onDown() when not.
export function subscribe(events, channel, { onEvent, onLive = () => {}, onDown = () => {} }) {
  const authorization = { host: events.host, "x-api-key": events.apiKey };
  const state = { live: false, closed: false };
  let socket = null;
  let attempt = 0;
  let retry = null;
  let watchdog = null;
  let heard = 0;
  let silenceMs = 300_000;
  let id = null;

  const send = (message) => socket?.readyState === WebSocket.OPEN && socket.send(JSON.stringify(message));

  function connect() {
    retry = null;
    id = newId();
    socket = new WebSocket(events.realtime, [PROTOCOL, `header-${base64url(JSON.stringify(authorization))}`]);
    const current = socket;
    current.onopen = () => send({ type: "connection_init" });
    current.onmessage = (message) => current === socket && receive(JSON.parse(message.data));
    current.onclose = () => current === socket && down();
  }

  function receive(message) {
    heard = Date.now();
    if (message.type === "connection_ack") {
      silenceMs = message.connectionTimeoutMs || silenceMs;
      clearInterval(watchdog);
      watchdog = setInterval(() => Date.now() - heard > silenceMs && socket?.close(), WATCHDOG_MS);
      send({ type: "subscribe", id, channel, authorization });
    } else if (message.type === "subscribe_success" && message.id === id) {
      attempt = 0;
      state.live = true;
      onLive();
    } else if (message.type === "data" && message.id === id) {
      for (const event of [].concat(message.event)) onEvent(JSON.parse(event));
    } else if (["subscribe_error", "connection_error", "error"].includes(message.type)) {
      socket.close(); // retried with backoff, polling meanwhile
    }
  }

  function down() {
    clearInterval(watchdog);
    socket = null;
    const was = state.live;
    state.live = false;
    if (was || attempt === 0) onDown();
    if (state.closed) return;
    const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt) * (0.5 + Math.random() / 2);
    attempt += 1;
    retry = setTimeout(connect, delay);
  }

  connect();
  return {
    get live() {
      return state.live;
    },
    close() {
      state.closed = true;
      clearTimeout(retry);
      clearInterval(watchdog);
      if (state.live) send({ type: "unsubscribe", id });
      const closing = socket;
      socket = null;
      state.live = false;
      closing?.close(1000);
    },
  };
}

// A published message as the page reads it: its rows gzip-compressed and base64 (`z`, message v2 and
// up, alleycat.push.encoded) read back into `rows` (v4's columns of steps as rows); a message without `z`
// is taken as it is.
export async function decodeMessage(message) {
  if (typeof message?.z !== "string") return message;
  const bytes = Uint8Array.from(atob(message.z), (c) => c.charCodeAt(0));
  const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  const { z, ...rest } = message;
  const packed = JSON.parse(text);
  return { ...rest, rows: (message.v ?? 0) >= 4 ? unpacked(packed) : packed };
}

const SCORE_UNITS = 10_000; // alleycat.push.SCORE_UNITS
const KEY_MASK = (1 << 20) - 1; // alleycat.push.KEY_BITS

// A column of steps (null: no value, the running sum kept) as its values.
function sums(steps) {
  let last = 0;
  return steps.map((step) => (step === null ? null : (last += step)));
}

// Message v4's `z`: [rank steps, whos, score steps in ten-thousandths, last-second steps, [[index, equipment, review?]]].
function unpacked([ranks, whos, units, seconds, extras]) {
  const [rankOf, unitOf, secondOf] = [sums(ranks), sums(units), sums(seconds)];
  const rows = whos.map((who, i) => [rankOf[i], who, unitOf[i] === null ? null : unitOf[i] / SCORE_UNITS, secondOf[i]]);
  for (const [index, ...extra] of extras) rows[index].push(...extra);
  return rows;
}

// A racer's key in message v4 (alleycat.push.key): FNV-1a (32 bits) of the id's UTF-8, its low 20 bits.
export function keyOf(racerId) {
  let value = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(racerId)) value = Math.imul(value ^ byte, 0x01000193) >>> 0;
  return value & KEY_MASK;
}

// A message's rows as board items (name only where the row has one; `key` where the row names its racer
// by key alone, v4). Message v4 (docs/push.md): [rank|null, who, score, lastSecond, equipment?, review?],
// who a key, a racer id or [racerId, name]; v3: [rank|null, racerId, score, lastSecond, equipment,
// review|null, name?]; v2 and before: [rank, racerId, score, lastSecond, name?] (no equipment, no review:
// the row keeps the ones it had).
export function messageRows(message) {
  const v = message?.v ?? 0;
  return (message?.rows || []).map((row) => {
    const [rank, who, score, lastSecond] = row;
    const item = { rank, score, lastSecond };
    if (v >= 4) {
      if (typeof who === "number") item.key = who;
      else if (Array.isArray(who)) Object.assign(item, { racerId: who[0], name: who[1] });
      else item.racerId = who;
      return Object.assign(item, { equipment: row[4] ?? "bike", review: row[5] ?? null });
    }
    item.racerId = who;
    const name = v >= 3 ? row[6] : row[4];
    if (v >= 3) Object.assign(item, { equipment: row[4], review: row[5] ?? null });
    if (name !== undefined) item.name = name;
    return item;
  });
}

// The boards' order: a disqualified ride last, then score descending, then racerId by code unit (no
// locale). The twin of `order` in layers/alleycat/python/alleycat/rules/board.py; tests/integration/test_push_js.py
// holds the two together.
const disqualified = (row) => (row.review === "disqualified" ? 1 : 0);
export const byBoardOrder = (a, b) => disqualified(a) - disqualified(b) || b.score - a.score
  || (a.racerId < b.racerId ? -1 : a.racerId > b.racerId ? 1 : 0);

// A pushed board message merged into the board's items (as GET /races/{raceId}/leaderboard gives
// them): a racer's row only moves forwards (a late or repeated message never rewinds it; a review
// decision comes with the same lastSecond), and the rows are ranked again in the board's order. Ranks
// come from position for the block of rows the items hold from rank 1 on (the whole board, or its
// top); a row held beyond that block (say, a racer's own row far down) keeps the rank the message, or
// the last read, gave it. A disqualified ride has no rank (null). `unknown`: the message named racers
// these items lack, ranked within the first `shownRows` (the rows the page shows) or without a rank.
export function applyBoardMessage(items, message, shownRows = Infinity) {
  const rows = new Map(items.map((item) => [item.racerId, { ...item }]));
  const held = new Set(items.map((item) => item.rank));
  let top = 0;
  while (held.has(top + 1)) top += 1;
  let unknown = false;
  const keyed = new Map();
  for (const racerId of rows.keys()) {
    const key = keyOf(racerId);
    keyed.set(key, keyed.has(key) ? null : racerId); // a key two held racers share names neither
  }
  for (const { key, ...pushed } of messageRows(message)) {
    if (key !== undefined) pushed.racerId = keyed.get(key) ?? null;
    const row = pushed.racerId === null ? undefined : rows.get(pushed.racerId);
    if (!row) {
      if (pushed.name === undefined || pushed.racerId === null) unknown ||= !(pushed.rank > shownRows);
      else rows.set(pushed.racerId, pushed);
    } else if ((pushed.lastSecond ?? -1) >= (row.lastSecond ?? -1)) {
      Object.assign(row, pushed);
    }
  }
  const ranked = [...rows.values()].sort(byBoardOrder);
  ranked.forEach((row, index) => {
    if (row.review === "disqualified") row.rank = null;
    else if (index < top) row.rank = index + 1;
    else row.rank = Math.max(row.rank ?? 0, top + 1);
  });
  return { items: ranked, unknown };
}

// The rank of a message's last row that has one (0 for none): changed racers it left out rank below.
export function lastRankOf(message) {
  const ranks = messageRows(message).map((row) => row.rank).filter((rank) => rank != null);
  return ranks.length ? ranks[ranks.length - 1] : 0;
}

// The race page's live feed: `standings()` is the board shown now, `show(standings)` draws a new one,
// `reread()` loads it over HTTP, `rowsShown()` how many rows from the top it shows. Returns
// { live, close() }; while not live the page polls.
export function liveBoard(raceId, { standings, show, reread, onFeed = () => {}, rowsShown = () => Infinity }) {
  let subscription = null;
  let closed = false;
  let lastReread = 0;
  const rereadSoon = (now = Date.now()) => {
    if (now - lastReread < STALE_REREAD_MS) return;
    lastReread = now;
    reread();
  };
  siteConfig().then(({ events } = {}) => {
    if (closed || !events?.realtime) return;
    subscription = subscribe(events, `/races/${raceId}`, {
      onLive: () => {
        onFeed("push");
        lastReread = Date.now();
        reread(); // whatever was published before this subscription
      },
      onDown: () => onFeed("poll"),
      onEvent: async (event) => {
        const message = await decodeMessage(event).catch(() => null);
        if (!message) return rereadSoon(); // a message the page cannot read: the board over HTTP instead
        const current = standings();
        if (!current || message.raceId !== raceId) return;
        if (message.status !== "open") {
          reread(); // finished: the final board is read over HTTP
          return;
        }
        const { items, unknown } = applyBoardMessage(current.items, message, rowsShown());
        show({ ...current, items });
        // Changed racers the message left out rank below its last row: rows there may lag.
        const lastRank = lastRankOf(message);
        if (unknown || (message.more > 0 && items.length > lastRank)) rereadSoon();
      },
    });
  });
  return {
    get live() {
      return Boolean(subscription?.live);
    },
    close() {
      closed = true;
      subscription?.close();
    },
  };
}
