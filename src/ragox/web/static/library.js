// Upload documents and watch each revision's state: an upload is not yet searchable
// until its revision is READY.
const rows = document.querySelector("#documents tbody");
const status = document.getElementById("upload-state");
const LABELS = {
  RECEIVED: "received", EXTRACTING: "extracting", EXTRACTED: "extracted",
  INDEXING: "indexing", READY: "ready (searchable)", FAILED: "failed",
};

function key() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("key")) {
    sessionStorage.setItem("ragox-key", fragment.get("key"));
    history.replaceState(null, "", location.pathname);
  }
  return sessionStorage.getItem("ragox-key") || "";
}

// States that will still change: poll quickly while any revision is in one,
// slowly otherwise, and not at all while the page is hidden.
const SETTLED = new Set(["READY", "FAILED"]);
let timer = null;

function schedule(pending) {
  clearTimeout(timer);
  if (!document.hidden) timer = setTimeout(refresh, pending ? 1500 : 15000);
}

async function refresh() {
  const response = await fetch("/v1/documents", { headers: { Authorization: `Bearer ${key()}` } });
  if (!response.ok) return schedule(false);
  const body = await response.json();
  rows.replaceChildren();
  let pending = false;
  for (const doc of body.documents) {
    for (const revision of doc.revisions) {
      const row = document.createElement("tr");
      row.dataset.document = doc.document_id;
      row.dataset.state = revision.state;
      pending ||= !SETTLED.has(revision.state);
      for (const value of [doc.document_id, revision.revision, LABELS[revision.state] || revision.state,
        revision.error ? `${revision.failed_stage}: ${revision.error}` : ""]) {
        const cell = document.createElement("td");
        cell.textContent = value;
        row.append(cell);
      }
      rows.append(row);
    }
  }
  schedule(pending);
}

document.getElementById("upload").onsubmit = async (event) => {
  event.preventDefault();
  const form = new FormData();
  form.append("file", document.getElementById("file").files[0]);
  const response = await fetch("/v1/documents", {
    method: "POST", headers: { Authorization: `Bearer ${key()}` }, body: form,
  });
  const body = await response.json();
  status.textContent = response.ok
    ? `Received ${body.document_id} (${body.revision}): ${LABELS[body.state] || body.state}`
    : `Upload refused: ${body.title}`;
  await refresh();
};

document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
key();
refresh();
