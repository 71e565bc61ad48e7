// The MQTT client (mqtt.js, its browser build: MQTT over the browser's own WebSocket), a module of its own
// (frontend/build.mjs: assets/mqtt-<hash>.js) that the ride page import()s as a ride first sends over MQTT
// (ingest.js): the app's script, and every other page, stays without it.
import mqtt from "mqtt";

export const connect = (url, options) => mqtt.connect(url, options);
