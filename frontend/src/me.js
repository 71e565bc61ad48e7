// The signed-in racer, as far as the frontend knows one: the racer id chosen with "This is me" on a
// racer's page, kept in this browser. (The frontend has no Cognito sign-in yet; one would set the same.)
const KEY = "alleycat.racerId";

export const me = {
  get: () => localStorage.getItem(KEY),
  set: (racerId) => localStorage.setItem(KEY, racerId),
  clear: () => localStorage.removeItem(KEY),
};
