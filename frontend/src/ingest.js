// A ride's samples over MQTT (contract v1.3, "Telemetry over MQTT"), where /config.json has `ingest`
// ({url, username, topic}): MQTT 3.1.1 over that WebSocket, user name `ingest.username`, password the
// racer's access token (a new token, refreshed, connects again with it), QoS 1 to the racer's own topic,
// at most 60 samples a message. A PUBACK means the broker received a message, not that it counted: what
// counted is on the race board (`lastSecond`). publish() says whether every message of a batch was
// acknowledged; when not (the broker cannot be reached, refuses the token, drops the connection, or no
// PUBACK came in time) the outbox sends the batch over HTTP instead (outbox.js): a second sent both ways
// counts once, the first value winning. A broker that could not be reached or refused is tried again
// DOWN_MS later; meanwhile publish() answers false at once. Runs in a browser and in Node
// (tests/integration/test_ingest_js.py, against the local stack's broker).

export const MAX_MESSAGE = 60; // samples a message carries at most
const CONNECT_TIMEOUT_MS = 10_000;
const PUBACK_TIMEOUT_MS = 10_000;
export const DOWN_MS = 30_000;
const KEEPALIVE_S = 60;
const SUPERSEDED = new Error("a newer token connects instead");

// [{topic, payload}] of a racer's samples: the racer is the topic's, so no sample names it.
export function messages(ingest, raceId, racerId, samples, device) {
  const topic = ingest.topic.replace("{raceId}", raceId).replace("{racerId}", racerId);
  const out = [];
  for (let start = 0; start < samples.length; start += MAX_MESSAGE) {
    const part = samples.slice(start, start + MAX_MESSAGE).map(({ racerId: _, ...sample }) => sample);
    out.push({ topic, payload: JSON.stringify(device ? { device, samples: part } : { samples: part }) });
  }
  return out;
}

export class MqttIngest {
  // load(): the MQTT client module ({connect}: mqttLink.js); token(): the racer's access token, or null.
  constructor(ingest, raceId, racerId, { load, token, now = () => Date.now() }) {
    Object.assign(this, { ingest, raceId, racerId, load, token, now });
    this.client = null; // connected, with this.password
    this.connecting = null;
    this.downUntil = 0;
    this.waiting = new Set(); // the rejects of messages not yet acknowledged
    this.stopped = false;
  }

  // Whether the broker acknowledged every message of `samples` (false: send them over HTTP).
  async publish(samples, device) {
    if (this.stopped || this.now() < this.downUntil) return false;
    const password = await this.token();
    if (!password) return false;
    let client;
    try {
      client = await this.connected(password);
    } catch (error) {
      if (error !== SUPERSEDED) this.downUntil = this.now() + DOWN_MS;
      return false;
    }
    try {
      await Promise.all(messages(this.ingest, this.raceId, this.racerId, samples, device).map((m) => this.sent(client, m)));
      return true;
    } catch {
      return false;
    }
  }

  // The connection, made (again) when there is none or the token changed.
  async connected(password) {
    if (this.client && this.password === password) return this.client;
    if (this.connecting?.password === password) return this.connecting.promise;
    this.drop();
    const { connect } = await this.load();
    const promise = new Promise((resolve, reject) => {
      const client = connect(this.ingest.url, {
        username: this.ingest.username, password, protocolVersion: 4, clean: true, reconnectPeriod: 0,
        connectTimeout: CONNECT_TIMEOUT_MS, keepalive: KEEPALIVE_S,
        // The page's own timers: mqtt.js's default in a browser makes them in a worker from a blob: URL, which the
        // site's CSP refuses (script-src 'self'). A hidden ride's page publishes every second anyway (heartbeat.js).
        timerVariant: "native",
      });
      const refused = (error) => {
        client.end(true);
        reject(error ?? new Error("connection closed"));
      };
      client.once("error", refused); // CONNACK "not authorized" among others
      client.once("close", refused);
      client.once("connect", () => {
        client.off("error", refused);
        client.off("close", refused);
        client.on("error", () => {});
        client.on("close", () => this.lost(client));
        resolve(client);
      });
    });
    const attempt = { password, promise };
    this.connecting = attempt;
    try {
      const client = await promise;
      if (this.connecting !== attempt || this.stopped) {
        client.end(true);
        throw SUPERSEDED;
      }
      this.client = client;
      this.password = password;
      return client;
    } finally {
      if (this.connecting === attempt) this.connecting = null;
    }
  }

  sent(client, { topic, payload }) {
    return new Promise((resolve, reject) => {
      const fail = (error) => {
        clearTimeout(timer);
        this.waiting.delete(fail);
        reject(error);
      };
      const timer = setTimeout(() => fail(new Error("no PUBACK")), PUBACK_TIMEOUT_MS);
      this.waiting.add(fail);
      client.publish(topic, payload, { qos: 1 }, (error) => {
        if (error) return fail(error);
        clearTimeout(timer);
        this.waiting.delete(fail);
        resolve();
      });
    });
  }

  // The connection closed: what waited for a PUBACK goes over HTTP; the next publish connects again.
  lost(client) {
    if (this.client === client) this.client = null;
    for (const fail of [...this.waiting]) fail(new Error("connection closed"));
  }

  drop() {
    const client = this.client;
    this.client = null;
    if (client) {
      client.end(true);
      this.lost(client);
    }
  }

  stop() {
    this.stopped = true;
    this.drop();
  }
}
