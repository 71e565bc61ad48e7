// A ride's samples on their way to the API, with no page. Each second's sample is queued; the oldest
// queued (at most MAX_BATCH) leave together as one batch with an Idempotency-Key of its own. A batch
// whose request failed is sent again first, unchanged and under the same key, however long that
// takes: the API then answers a retry that reached it twice with its first answer, and counts a
// second it already has as a duplicate, so every second counts once. A batch may go over MQTT instead
// (ingest.js): acknowledged, it is delivered (received, its seconds counted or not as the board says).
// Runs in a browser and in Node
// (tests/integration/test_ride_js.py).

export const MAX_BATCH = 1000; // the contract's largest batch
export const ANOTHER_DEVICE = "another device"; // a rejected sample's reason (contract v1.2, Fair play)
export const NOT_YET = "not yet";

export class Outbox {
  // newKey(): a fresh Idempotency-Key. saved: what toJSON() gave (a page reloaded mid-ride).
  constructor(newKey, saved = null) {
    this.newKey = newKey;
    this.queued = saved?.queued ?? [];
    this.pending = saved?.pending ?? null; // {key, samples}: sent at least once, its answer not had
    this.accepted = saved?.accepted ?? 0;
    this.duplicates = saved?.duplicates ?? 0;
    this.refused = saved?.refused ?? 0; // samples the API would not take (rejected, or a 4xx batch)
    this.acknowledged = saved?.acknowledged ?? 0; // samples the MQTT broker acknowledged (not an answer: counted or not)
  }

  add(sample) {
    this.queued.push(sample);
  }

  // The batch to send now, or null when there is nothing to send.
  next() {
    if (!this.pending && this.queued.length) {
      this.pending = { key: this.newKey(), samples: this.queued.splice(0, MAX_BATCH) };
    }
    return this.pending;
  }

  // The API's answer to `batch`: {accepted, duplicates, rejected}. Samples rejected because another
  // device holds the ride are not counted as refused: they were this device's, while it was not riding
  // (the page stops queueing; what it had queued then goes with drop()). A `not yet` is refused and
  // never sent again (a page that sends a second before it happens has a bug: resending it would not fix it).
  answered(batch, answer) {
    if (batch !== this.pending) return;
    this.pending = null;
    this.accepted += answer.accepted;
    this.duplicates += answer.duplicates;
    this.refused += answer.rejected.filter((sample) => sample.reason !== ANOTHER_DEVICE).length;
  }

  // `batch` went over MQTT and the broker acknowledged it: received, not answered for (the board says what counted).
  delivered(batch) {
    if (batch !== this.pending) return;
    this.pending = null;
    this.acknowledged += batch.samples.length;
  }

  // Drops what is queued, not yet sent (the ride is on another device): how many.
  drop() {
    return this.queued.splice(0).length;
  }

  // The API refused `batch` for good (a 4xx other than a lost sign-in): no retry can change that.
  refusedBatch(batch) {
    if (batch !== this.pending) return;
    this.pending = null;
    this.refused += batch.samples.length;
  }

  // Samples not yet answered for.
  get waiting() {
    return this.queued.length + (this.pending ? this.pending.samples.length : 0);
  }

  toJSON() {
    const { queued, pending, accepted, duplicates, refused, acknowledged } = this;
    return { queued, pending, accepted, duplicates, refused, acknowledged };
  }
}
