// A dedicated worker that wakes the ride page every BEAT_MS while a ride is live. Chrome throttles a
// hidden page's own timers (to a wake-up a second, then after 5 minutes hidden to one a minute:
// "intensive wake up throttling", chromestatus.com/feature/4718288976216064), not a dedicated
// worker's; a message from here is a task of the page that no timer throttling delays. The page
// counts the seconds itself, from the server's clock (serverTime.js): a beat only wakes it.
const BEAT_MS = 250;
setInterval(() => postMessage(null), BEAT_MS);
