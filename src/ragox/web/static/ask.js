// A conversation with your documents: each question's answer stays on screen with its
// citations as cards (the quoted passage with a little context, document, revision,
// page, and whether it resolves); a card opens the verified passage beside it.
import { api, mountAccount, currentKey } from "/view/static/session.js";
import { statusBadge } from "/view/static/status.js";
import { localize, t, withLanguage } from "/view/static/i18n.js";
import { joinBrokenWords, readableNodes } from "/view/static/readable.js";

localize();

const root = document.getElementById("ragox-ask");
const conversation = document.getElementById("conversation");
const frame = document.getElementById("passage");
const beside = frame.parentElement;
const askState = document.getElementById("ask-state");
const question = document.getElementById("question");
const answerLanguage = document.getElementById("answer-language");
const wide = window.matchMedia("(min-width: 900px)");

function viewerUrl(anchorId) {
  return `/view/anchors/${encodeURIComponent(anchorId)}`;
}

/** The viewer in the frame speaks the page's language (a copied link leaves it to the
 * reader's browser). */
function framedUrl(anchorId) {
  return withLanguage(viewerUrl(anchorId));
}

/** Open a citation: beside the conversation on a wide screen, under its card on a phone. */
function open(anchorId, card, button) {
  recheck([button]);
  for (const other of conversation.querySelectorAll("button.cite[aria-pressed='true']")) {
    other.setAttribute("aria-pressed", "false");
  }
  button.setAttribute("aria-pressed", "true");
  if (wide.matches) {
    if (frame.parentElement !== beside) beside.append(frame);
  } else if (frame.parentElement !== card) {
    card.append(frame);
  }
  frame.hidden = false;
  frame.src = framedUrl(anchorId);
  if (!wide.matches) frame.scrollIntoView({ block: "nearest" });
}

/** Cards say whether their quote resolves now, not only when it was answered: each is
 * resolved again (GET /v1/anchors/{id}) when it is opened and when the page is shown
 * again. A quote that no longer resolves for this reader (its document deleted, its
 * readers changed) loses its badge "verified" and leaves the screen; the viewer says
 * why. A check that fails (offline, a busy or failing server) says "not re-checked"
 * instead of "verified" until a later check succeeds: the quote stays, as it was
 * shown before, but is no longer vouched for. */
async function recheck(buttons) {
  for (const button of buttons) {
    const anchorId = button.dataset.anchor;
    let status;
    try {
      const response = await api(`/v1/anchors/${encodeURIComponent(anchorId)}`);
      status = response.ok ? (await response.json()).status : "UNCHECKED";
    } catch {
      status = "UNCHECKED"; // offline: nothing new is known
    }
    if (!status || button.dataset.status === status) continue;
    button.dataset.status = status;
    button.querySelector(".badge")?.replaceWith(statusBadge(status));
    if (status !== "RESOLVED" && status !== "UNCHECKED") {
      for (const shown of button.querySelectorAll(".quote, .translation, .also-in")) shown.remove();
    }
    const card = button.closest("li.card");
    const statuses = [...card.querySelectorAll("button.cite")].map((b) => b.dataset.status);
    card.dataset.status = statuses.find((s) => s !== "RESOLVED") || "RESOLVED";
  }
}

const recheckAll = () => {
  if (document.visibilityState === "visible" && currentKey()) {
    recheck([...conversation.querySelectorAll("button.cite")]);
  }
};
document.addEventListener("visibilitychange", recheckAll);
// back to the page from the browser's back-forward cache: shown again, not reloaded
window.addEventListener("pageshow", (event) => { if (event.persisted) recheckAll(); });

/** Answer text with `code` and ``` fenced blocks shown as code, all as text nodes. */
export function renderRich(text, into) {
  const parts = text.split("```");
  parts.forEach((part, index) => {
    if (index % 2 === 1) {
      const pre = document.createElement("pre");
      const code = document.createElement("code");
      code.textContent = part.replace(/^[\w+-]*\n/, ""); // drop a language tag line
      pre.append(code);
      into.append(pre);
      return;
    }
    const paragraph = document.createElement("p");
    paragraph.dir = "auto";
    part.split("`").forEach((piece, inner) => {
      if (inner % 2 === 1) {
        const code = document.createElement("code");
        code.textContent = piece;
        paragraph.append(code);
      } else if (piece) {
        paragraph.append(document.createTextNode(piece));
      }
    });
    if (paragraph.textContent.trim()) into.append(paragraph);
  });
}

function pageText(pages) {
  if (!pages || !pages.length) return "";
  const labels = [...new Set(pages.map((p) => p.label))];
  return labels.length === 1
    ? ` · ${t("page", { label: labels[0] })}`
    : ` · ${t("pages", { first: labels[0], last: labels[labels.length - 1] })}`;
}

/** One card per source: an answer that quotes two sentences of one passage says its
 * source label ("[S1]") after each, and both quotes belong to that label's card. */
function card(citations) {
  const first = citations[0];
  const item = document.createElement("li");
  item.className = "card";
  item.dataset.source = first.source_id;
  item.dataset.anchor = first.anchor.anchor_id;
  item.dataset.status = first.status;
  citations.forEach((citation, index) => {
    const { anchor } = citation;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cite";
    button.dataset.anchor = anchor.anchor_id;
    button.dataset.status = citation.status;
    button.setAttribute("aria-pressed", "false");
    if (index === 0) {
      const head = document.createElement("span");
      head.className = "card-head";
      const number = document.createElement("span");
      number.className = "source";
      number.textContent = `[${citation.source_id}]`;
      const where = document.createElement("span");
      where.className = "where";
      const pages = citations.flatMap((c) => c.pages || []);
      where.textContent = ` ${anchor.document_id} · ${t("revision", anchor)}${pageText(pages)}`;
      head.append(number, where);
      button.append(head);
    } else {
      // shown once on the card; a screen reader still hears whose quote each one is
      const label = document.createElement("span");
      label.className = "sr-only";
      label.textContent = `[${citation.source_id}] `;
      button.append(label);
    }
    const quote = document.createElement("span");
    quote.className = "quote";
    quote.dir = "auto"; // an Arabic or Hebrew passage reads right to left
    // a little context: the server's, else the anchor's own prefix and suffix
    const around = citation.context || { before: anchor.quote.prefix, after: anchor.quote.suffix };
    // runs of white space as one space, broken words joined; a space next to the passage
    // stays, so a word cut by the passage is not split
    const squeeze = (value) => joinBrokenWords(value || "").replace(/\s+/g, " ");
    const bit = (value) => squeeze(value).trim() !== "";
    const before = document.createElement("span");
    before.className = "context";
    const cut = (end) => (around[end] ? "" : "…"); // the text goes on beyond what is shown
    before.textContent = bit(around.before) ? `${cut("from_start")}${squeeze(around.before).trimStart()}` : "";
    const exact = document.createElement("mark");
    exact.replaceChildren(...readableNodes(anchor.quote.exact)); // its text stays the quote
    const after = document.createElement("span");
    after.className = "context";
    after.textContent = bit(around.after) ? `${squeeze(around.after).trimEnd()}${cut("to_end")}` : "";
    quote.append(before, exact, after);
    button.append(quote, statusBadge(citation.status));
    if (citation.translation) button.append(translation(citation.translation));
    if (citation.also_in && citation.also_in.length) button.append(alsoIn(citation.also_in));
    button.onclick = () => open(anchor.anchor_id, item, button);
    const copy = document.createElement("button");
    copy.type = "button";
    copy.className = "copy";
    copy.textContent = t("ask.copy");
    copy.setAttribute("aria-label", index
      ? t("ask.copy-label-quote", { source: citation.source_id, number: index + 1 })
      : t("ask.copy-label", { source: citation.source_id }));
    const copied = document.createElement("span");
    copied.className = "copied";
    copied.setAttribute("role", "status");
    copy.onclick = async () => {
      const link = new URL(viewerUrl(anchor.anchor_id), location.origin).href; // never the key
      try {
        await navigator.clipboard.writeText(link);
        copied.textContent = t("ask.copied");
      } catch {
        copied.textContent = link; // no clipboard here: show it to copy by hand
      }
      item.dataset.link = link;
    };
    const tools = document.createElement("span");
    tools.className = "card-tools";
    tools.append(copy, copied);
    item.append(button, tools);
  });
  return item;
}

/** The same passage in other documents the reader may read (the PDF of an HTML manual). */
function alsoIn(others) {
  const line = document.createElement("span");
  line.className = "also-in";
  const places = others
    .map((o) => `${o.anchor.document_id} · ${t("revision", o.anchor)}${pageText(o.pages)}`)
    .join("; ");
  line.textContent = t("ask.also-in", { places });
  return line;
}

/** A quote's translation: labelled as such, with the generator that made it, and apart
 * from the quote (the cited, verified text stays the source's). */
function translation(rendered) {
  const box = document.createElement("span");
  box.className = "translation";
  box.dataset.translator = rendered.translator;
  const label = document.createElement("span");
  label.className = "translation-label";
  const from = rendered.source_language ? `${rendered.source_language} → ` : "";
  label.textContent = t("ask.translation", {
    languages: `${from}${rendered.language}`, translator: rendered.translator,
  });
  const text = document.createElement("span");
  text.className = "translation-text";
  text.lang = rendered.language;
  text.dir = "auto";
  text.textContent = rendered.text;
  box.append(label, " ", text);
  return box;
}

function turn(text) {
  const item = document.createElement("li");
  item.className = "turn";
  const asked = document.createElement("p");
  asked.className = "asked";
  asked.textContent = text;
  const reply = document.createElement("div");
  reply.className = "reply";
  reply.setAttribute("aria-live", "polite");
  reply.textContent = t("ask.searching");
  item.append(asked, reply);
  conversation.append(item);
  return [item, reply];
}

document.getElementById("ask").onsubmit = async (event) => {
  event.preventDefault();
  if (!currentKey()) {
    askState.textContent = t("ask.sign-in-first");
    document.getElementById("apikey")?.focus();
    return;
  }
  const text = question.value.trim();
  if (!text) return;
  askState.textContent = "";
  root.dataset.ragoxState = "ASKING";
  const [item, reply] = turn(text);
  question.value = "";
  const response = await api("/v1/ask", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(answerLanguage.value
      ? { question: text, answer_language: answerLanguage.value }
      : { question: text }),
  });
  reply.replaceChildren();
  if (!response.ok) {
    root.dataset.ragoxState = "ERROR";
    item.dataset.state = "ERROR";
    reply.textContent = response.status === 401
      ? t("ask.key-refused")
      : t("ask.failed");
    return;
  }
  const body = await response.json();
  const state = body.abstained ? "ABSTAINED" : "ANSWERED";
  item.dataset.state = state;
  item.dataset.answer = body.answer_id;
  for (const notice of body.notices || []) {
    const line = document.createElement("p");
    line.className = "notice";
    line.lang = body.message_language || "en";
    line.textContent = notice;
    reply.append(line);
  }
  renderRich(body.answer, reply);
  reply.classList.add("answer");
  // an abstention is the answer's own words; an answer quotes its passages, written in
  // the reader's language only when a generator translated them
  if (body.abstained) reply.lang = body.message_language || "en";
  else if (body.answer_language) reply.lang = body.answer_language;
  if (body.citations.length) {
    const list = document.createElement("ul");
    list.className = "cards";
    list.setAttribute("aria-label", t("ask.citations"));
    const bySource = new Map();
    for (const citation of body.citations) {
      if (!bySource.has(citation.source_id)) bySource.set(citation.source_id, []);
      bySource.get(citation.source_id).push(citation);
    }
    for (const citations of bySource.values()) list.append(card(citations));
    item.append(list);
  }
  root.dataset.ragoxState = state;
  root.dataset.turns = String(conversation.children.length);
  item.scrollIntoView({ block: "nearest" });
};

wide.addEventListener("change", () => {
  if (wide.matches && frame.parentElement !== beside) beside.append(frame);
});

// Signed out (here or in another tab): nothing of the conversation stays on screen.
mountAccount(document.getElementById("account"), (me, hadFocus) => {
  if (me) {
    if (hadFocus) question.focus(); // just signed in: the next thing is the question
    return;
  }
  conversation.replaceChildren();
  beside.append(frame);
  frame.hidden = true;
  frame.removeAttribute("src");
  root.dataset.ragoxState = "READY";
  delete root.dataset.turns;
});
