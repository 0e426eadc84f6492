// The API key of this browser session, shared by every open ragox tab.
//
// Where the key lives: sessionStorage, per tab (it ends with the tab, never written
// to disk by us, never sent anywhere but the Authorization header). A tab without a
// key asks the other open ragox tabs for theirs over a BroadcastChannel (same origin
// only, in memory); signing in or forgetting in one tab does the same in all. So the
// key lasts exactly as long as some ragox tab is open: the browser session. Not
// localStorage, which would keep the key on disk after every tab is closed; not a
// cookie, which the browser would send by itself (cross-site request forgery) and
// which the API does not read. The key is never put in a URL; an old link's
// `#key=` fragment (never sent to the server) is taken once and removed at once.

import { t } from "/view/static/i18n.js";

const NAME = "ragox-key";
const channel = "BroadcastChannel" in window ? new BroadcastChannel("ragox-session") : null;
const listeners = new Set();

export function currentKey() {
  return sessionStorage.getItem(NAME) || "";
}

function store(key, refused = false) {
  if (key) sessionStorage.setItem(NAME, key);
  else sessionStorage.removeItem(NAME);
  for (const listener of listeners) listener(key, refused);
}

/** Call `listener(key)` whenever this tab's key changes (signed in, forgotten). */
export function onKeyChange(listener) {
  listeners.add(listener);
}

if (channel) {
  channel.onmessage = ({ data }) => {
    if (!data || typeof data !== "object") return;
    if (data.type === "want" && currentKey()) channel.postMessage({ type: "key", key: currentKey() });
    else if (data.type === "key" && typeof data.key === "string" && data.key !== currentKey()) store(data.key);
    else if (data.type === "forget" && currentKey()) store("");
  };
}

function fromFragment() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const key = fragment.get("key");
  if (key) {
    sessionStorage.setItem(NAME, key);
    history.replaceState(null, "", location.pathname + location.search);
  }
}

/** This tab's key, or another open tab's (asked for briefly), or "". */
export async function obtainKey() {
  fromFragment();
  if (currentKey() || !channel) return currentKey();
  const reply = new Promise((resolve) => {
    const done = () => { channel.removeEventListener("message", hear); resolve(); };
    const hear = ({ data }) => { if (data && data.type === "key") setTimeout(done, 0); };
    channel.addEventListener("message", hear);
    setTimeout(done, 300);
  });
  channel.postMessage({ type: "want" });
  await reply;
  return currentKey();
}

/** Keep `key` for this session, in this tab and every other open one. */
export function signIn(key) {
  store(key);
  if (channel) channel.postMessage({ type: "key", key });
}

/** Forget the key in this tab and every other open one. */
export function forget() {
  store("");
  if (channel) channel.postMessage({ type: "forget" });
}

/** fetch() with the session's key; a refused key is forgotten here (not in other tabs,
 * which may hold a newer one). */
export async function api(path, options = {}) {
  const headers = { ...(options.headers || {}), Authorization: `Bearer ${currentKey()}` };
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401 && currentKey()) store("", true);
  return response;
}

/** Who the key is (GET /v1/me), or null when there is no key or it is refused. */
export async function whoAmI() {
  if (!currentKey()) return null;
  const response = await fetch("/v1/me", { headers: { Authorization: `Bearer ${currentKey()}` } });
  return response.ok ? response.json() : null;
}

/** The sign-in area of a page: a key field while signed out, the name and a forget
 * button while signed in. `onChange(me, hadFocus)` runs on every change, with null
 * when out; `hadFocus`: the keyboard was in the area (it is now on its first control). */
export function mountAccount(box, onChange) {
  let refused = false;
  const render = async () => {
    const had = currentKey();
    const me = await whoAmI();
    if (had && !me && had === currentKey()) {
      sessionStorage.removeItem(NAME); // refused: forgotten here, quietly
      refused = true;
    }
    // where the keyboard was: inside the form or button about to be replaced, it
    // would fall to the page's body (a new-user pass); it stays in the account area
    const hadFocus = box.contains(document.activeElement);
    box.replaceChildren();
    if (me) {
      const who = document.createElement("span");
      who.id = "signed-in";
      who.textContent = t("session.signed-in", { name: me.name }) + (me.operate ? t("session.operator") : "");
      const out = document.createElement("button");
      out.type = "button";
      out.id = "forget";
      out.textContent = t("session.forget");
      out.onclick = () => forget();
      box.append(who, out);
    } else {
      const form = document.createElement("form");
      form.id = "signin";
      const label = document.createElement("label");
      label.htmlFor = "apikey";
      label.textContent = t("session.key");
      const input = document.createElement("input");
      input.id = "apikey";
      input.type = "password";
      input.autocomplete = "off";
      input.required = true;
      const button = document.createElement("button");
      button.type = "submit";
      button.textContent = t("session.sign-in");
      const note = document.createElement("span");
      note.id = "signin-state";
      note.setAttribute("role", "status");
      note.textContent = refused ? t("session.refused") : "";
      const hint = document.createElement("p");
      hint.id = "signin-hint";
      hint.className = "meta";
      hint.textContent = t("session.hint");
      form.append(label, input, button, note, hint);
      form.onsubmit = async (event) => {
        event.preventDefault();
        const key = input.value.trim();
        const response = await fetch("/v1/me", { headers: { Authorization: `Bearer ${key}` } });
        if (!response.ok) {
          note.textContent = t("session.refused");
          return;
        }
        refused = false;
        signIn(key);
      };
      box.append(form);
    }
    box.dataset.signedIn = String(Boolean(me));
    if (hadFocus) box.querySelector("button, input")?.focus();
    onChange(me, hadFocus);
  };
  onKeyChange((key, wasRefused) => { refused = wasRefused; render(); });
  return obtainKey().then(render);
}
