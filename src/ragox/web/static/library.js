// The documents this key may read: find them (name, state, group, language), page
// through them, upload with progress (the new revision is listed at once and followed
// until READY or FAILED), and, for operate keys only, delete and change readers. The
// server decides every request itself; hiding controls is only courtesy.
import { api, currentKey, mountAccount } from "/view/static/session.js";
import { localize, t } from "/view/static/i18n.js";

localize();

const PAGE_SIZE = 25;
const rows = document.querySelector("#documents tbody");
const table = document.getElementById("documents");
const status = document.getElementById("upload-state");
const progress = document.getElementById("upload-progress");
const count = document.getElementById("count");
const pageOf = document.getElementById("page-of");
const paging = document.getElementById("paging");
const filters = {
  search: document.getElementById("search"),
  state: document.getElementById("state-filter"),
  group: document.getElementById("group"),
  language: document.getElementById("language"),
};
const LABELS = Object.fromEntries(["RECEIVED", "EXTRACTING", "EXTRACTED", "INDEXING", "READY", "FAILED"]
  .map((state) => [state, t(`library.${state}`)]));
const SETTLED = new Set(["READY", "FAILED"]);

let me = null;
let documents = [];
let page = 0;
const uploads = new Map(); // document id -> {revision, state}: listed before the server lists them

const newest = (doc) => doc.revisions[doc.revisions.length - 1];

function path(documentId) {
  return `/v1/documents/${encodeURIComponent(documentId)}`;
}

/** The list as shown: this page's uploads first (listed before the server lists them,
 * and kept on top while they are followed to READY or FAILED), then the server's. */
function entries() {
  const listed = new Map(documents.map((d) => [d.document_id, d]));
  const shown = [];
  for (const [id, upload] of [...uploads].reverse()) {
    const known = listed.get(id);
    if (known && known.revisions.some((r) => r.revision === upload.revision)) {
      upload.state = newest(known).state;
      shown.push(known);
    } else {
      shown.push({ document_id: id, revisions: [{ revision: upload.revision, state: upload.state, groups: [], language: null }] });
    }
    listed.delete(id);
  }
  return shown.concat([...listed.values()]);
}

function matches(doc) {
  const revision = newest(doc);
  const name = filters.search.value.trim().toLowerCase();
  if (name && !doc.document_id.toLowerCase().includes(name)) return false;
  const state = filters.state.value;
  if (state === "PENDING" ? SETTLED.has(revision.state) : state && revision.state !== state) return false;
  if (filters.group.value && !doc.revisions.some((r) => (r.groups || []).includes(filters.group.value))) return false;
  if (filters.language.value && !doc.revisions.some((r) => r.language === filters.language.value)) return false;
  return true;
}

function options(select, values) {
  const chosen = select.value;
  const first = select.options[0];
  select.replaceChildren(first);
  for (const value of [...values].sort()) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = value;
    select.append(option);
  }
  select.value = [...values].includes(chosen) ? chosen : "";
}

function cell(row, label, value) {
  const td = document.createElement("td");
  td.dataset.label = label;
  if (value instanceof Node) td.append(value);
  else td.textContent = value;
  row.append(td);
  return td;
}

function button(text, onclick, name) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  if (name) b.setAttribute("aria-label", name);
  b.onclick = onclick;
  return b;
}

function deleteButton(doc) {
  const b = button(t("library.delete"), null, t("library.delete-label", { document: doc.document_id }));
  b.onclick = async () => {
    if (b.dataset.confirm !== "yes") { // a second press confirms
      b.dataset.confirm = "yes";
      b.textContent = t("library.confirm");
      b.setAttribute("aria-label", t("library.confirm-label", { document: doc.document_id }));
      return;
    }
    delete b.dataset.confirm;
    const response = await api(path(doc.document_id), { method: "DELETE" });
    notice(response.ok
      ? t("library.deleted", { document: doc.document_id })
      : t("library.delete-refused", { status: response.status }));
    if (response.ok) uploads.delete(doc.document_id);
    await refresh();
  };
  return b;
}

function readersEditor(doc, row) {
  return button(t("library.readers"), () => {
    const existing = row.nextElementSibling;
    if (existing && existing.classList.contains("editor")) { existing.remove(); return; }
    const editor = document.createElement("tr");
    editor.className = "editor";
    const td = document.createElement("td");
    td.colSpan = 6;
    const form = document.createElement("form");
    const id = `groups-${[...doc.document_id].map((c) => c.codePointAt(0).toString(16)).join("")}`;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = t("library.reader-groups", { document: doc.document_id });
    const input = document.createElement("input");
    input.id = id;
    input.value = (newest(doc).groups || []).join(", ");
    const save = document.createElement("button");
    save.type = "submit";
    save.textContent = t("library.save-readers");
    form.append(label, input, save);
    form.onsubmit = async (event) => {
      event.preventDefault();
      const groups = input.value.split(",").map((g) => g.trim()).filter(Boolean);
      const response = await api(`${path(doc.document_id)}/groups`, {
        method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ groups }),
      });
      notice(response.ok
        ? t("library.readers-now", {
          document: doc.document_id, groups: groups.join(", ") || t("library.operators-only"),
        })
        : t("library.change-refused", { status: response.status }));
      editor.remove();
      await refresh();
    };
    td.append(form);
    editor.append(td);
    row.after(editor);
    input.focus();
  }, t("library.readers-of", { document: doc.document_id }));
}

function render() {
  const all = entries();
  options(filters.group, new Set(all.flatMap((d) => d.revisions.flatMap((r) => r.groups || []))));
  options(filters.language, new Set(all.flatMap((d) => d.revisions.map((r) => r.language).filter(Boolean))));
  const shown = all.filter(matches);
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  page = Math.min(page, pages - 1);
  const operate = Boolean(me && me.operate);
  table.classList.toggle("can-operate", operate);
  rows.replaceChildren();
  for (const doc of shown.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE)) {
    const revision = newest(doc);
    const row = document.createElement("tr");
    row.dataset.document = doc.document_id;
    row.dataset.state = revision.state;
    cell(row, t("library.document"), doc.document_id);
    cell(row, t("library.revision"), revision.revision);
    const state = cell(row, t("library.state"), LABELS[revision.state] || revision.state);
    if (revision.error) state.append(document.createTextNode(` — ${revision.failed_stage}: ${revision.error}`));
    cell(row, t("library.language"), revision.language || "");
    cell(row, t("library.readers"), (revision.groups || []).join(", "));
    if (operate && doc.revisions.some((r) => r.source_sha256)) {
      const actions = document.createElement("span");
      actions.className = "actions";
      actions.append(readersEditor(doc, row), deleteButton(doc));
      cell(row, t("library.actions"), actions).className = "operate";
    } else if (operate) {
      cell(row, t("library.actions"), "").className = "operate";
    }
    rows.append(row);
  }
  count.textContent = shown.length === all.length
    ? t("library.count", { n: all.length })
    : t("library.matching", { shown: shown.length, n: all.length });
  pageOf.textContent = t("library.page-of", { page: page + 1, pages });
  paging.hidden = pages < 2;
  document.getElementById("prev-page").disabled = page === 0;
  document.getElementById("next-page").disabled = page >= pages - 1;
}

// States that will still change: poll quickly while any revision is in one,
// slowly otherwise, and not at all while the page is hidden.
let timer = null;
function schedule(pending) {
  clearTimeout(timer);
  if (!document.hidden) timer = setTimeout(refresh, pending ? 1000 : 15000);
}

async function refresh() {
  if (!currentKey()) {
    documents = [];
    render();
    return;
  }
  const response = await api("/v1/documents");
  if (!response.ok) return schedule(false);
  documents = (await response.json()).documents;
  // each received upload's line follows its revision's state (before, it stayed at
  // "received" after the row said "ready"; a new-user pass)
  for (const upload of [...received]) {
    const doc = documents.find((d) => d.document_id === upload.document);
    const revision = doc && doc.revisions.find((r) => r.revision === upload.revision);
    if (!revision) continue;
    upload.line.textContent = t("library.received", {
      document: upload.document, revision: upload.revision, state: LABELS[revision.state] || revision.state,
    });
    if (SETTLED.has(revision.state)) received.splice(received.indexOf(upload), 1);
  }
  // not under the hands of someone editing readers or confirming a delete
  if (!rows.querySelector("tr.editor, button[data-confirm='yes']")) render();
  const pending = [...uploads.values()].some((u) => !SETTLED.has(u.state))
    || documents.some((d) => d.revisions.some((r) => !SETTLED.has(r.state)));
  schedule(pending);
}

// Each upload has its own line in the status region, so that one that ends while another
// is still sending does not overwrite the other's line; the progress bar shows the
// newest upload still sending and hides when none is.
const sending = []; // {line, percent} of uploads still sending, oldest first
const received = []; // {line, document, revision} of uploads not yet READY or FAILED

/** A new line of the status region (of one upload, or a message). */
function statusLine(text) {
  const line = document.createElement("span");
  line.className = "upload-line";
  line.textContent = text;
  status.append(line);
  return line;
}

/** A message in place of what the region said, beside the uploads still sending. */
function notice(text) {
  status.replaceChildren(...sending.map((u) => u.line));
  statusLine(text);
}

function showProgress() {
  const newest = sending[sending.length - 1];
  progress.hidden = !newest;
  if (!newest) return;
  progress.value = newest.percent;
  if (newest.percent > 0) progress.dataset.seen = String(newest.percent);
  else delete progress.dataset.seen;
}

/** Upload with XMLHttpRequest: fetch() reports no upload progress. */
function send(file, upload) {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open("POST", "/v1/documents");
    request.setRequestHeader("Authorization", `Bearer ${currentKey()}`);
    request.responseType = "json";
    request.upload.onprogress = (event) => {
      if (!event.lengthComputable) return;
      upload.percent = Math.round((event.loaded / event.total) * 100);
      upload.line.textContent = t("library.uploading", { name: file.name, percent: upload.percent });
      showProgress();
    };
    request.onload = () => resolve({ status: request.status, body: request.response || {} });
    request.onerror = () => resolve({ status: 0, body: {} });
    const form = new FormData();
    form.append("file", file);
    request.send(form);
  });
}

document.getElementById("upload").onsubmit = async (event) => {
  event.preventDefault();
  const file = document.getElementById("file").files[0];
  if (!file) return;
  if (!sending.length) status.replaceChildren(); // what earlier uploads said
  const upload = { line: statusLine(t("library.uploading", { name: file.name, percent: 0 })), percent: 0 };
  sending.push(upload);
  showProgress();
  const { status: code, body } = await send(file, upload);
  sending.splice(sending.indexOf(upload), 1);
  showProgress();
  if (code === 202) {
    upload.line.textContent = t("library.received", {
      document: body.document_id, revision: body.revision, state: LABELS[body.state] || body.state,
    });
    if (!SETTLED.has(body.state)) {
      received.push({ line: upload.line, document: body.document_id, revision: body.revision });
    }
    uploads.delete(body.document_id); // re-inserted: the newest upload is first
    uploads.set(body.document_id, { revision: body.revision, state: body.state });
    page = 0;
    render();
  } else {
    const reason = `${body.title || t("library.no-answer")}${body.detail ? ` (${body.detail})` : ""}`;
    upload.line.textContent = t("library.upload-refused", { name: file.name, reason });
  }
  await refresh();
};

for (const control of Object.values(filters)) {
  control.addEventListener("input", () => { page = 0; render(); });
}
document.getElementById("filters").onsubmit = (event) => event.preventDefault();
document.getElementById("prev-page").onclick = () => { page -= 1; render(); };
document.getElementById("next-page").onclick = () => { page += 1; render(); };
document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });

mountAccount(document.getElementById("account"), (who) => {
  me = who;
  // only keys with write prefixes may upload (the server decides; this is courtesy)
  document.getElementById("upload").hidden = !(who && who.write.length);
  refresh();
});
