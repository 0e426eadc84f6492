// The ragox passage viewer: resolves an anchor through the API, renders the
// representation as text nodes (never as HTML), converts the resolver's code-point
// range to UTF-16 offsets and DOM Range boundaries, re-checks the exact quote, and
// only then highlights. A mismatch is an error state, never a guessed highlight.

const root = document.getElementById("ragox-viewer");
const stateLine = document.getElementById("state");
const whereLine = document.getElementById("where");
const unitLine = document.getElementById("unit");
const noticeLine = document.getElementById("notice");
const unverifiedBox = document.getElementById("unverified");
const article = document.getElementById("document");
const pageBox = document.getElementById("page");
const pageNav = document.getElementById("pages");
const PDF_ZOOM = 1.5; // the API renders pages at this zoom

const MESSAGES = {
  ACCESS_DENIED: "You do not have access to this passage (or it does not exist).",
  MANIFEST_INVALID: "The stored record of this document failed its integrity check.",
  SOURCE_CHANGED: "The source changed since this answer: the passage cannot be verified.",
  PARSER_MISMATCH: "The document was re-extracted since this answer: the passage cannot be verified.",
  PROFILE_MISMATCH: "The document was re-normalized since this answer: the passage cannot be verified.",
  TEXT_CHANGED: "The document text changed since this answer: the passage cannot be verified.",
  INVALID_RANGE: "The citation's range is not valid in this text.",
  QUOTE_NOT_FOUND: "The quoted passage is not in the current text.",
  AMBIGUOUS: "This passage is ambiguous in the current text.",
  POSITION_MISMATCH: "The passage is not where the citation says it is.",
  HIGHLIGHT_MISMATCH: "The viewer could not reproduce the exact passage, so nothing is highlighted.",
  ERROR: "The passage could not be loaded.",
};

function setState(status, message) {
  root.dataset.ragoxStatus = status;
  stateLine.textContent = message;
}

function apiKey() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromLink = fragment.get("key");
  if (fromLink) {
    sessionStorage.setItem("ragox-key", fromLink);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("ragox-key");
}

async function api(path, key) {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${key}` } });
  if (response.status === 401) {
    sessionStorage.removeItem("ragox-key");
    throw new Error("unauthorized");
  }
  return response;
}

/** Code-point offset → UTF-16 offset in `text` (the DOM counts UTF-16 units). */
export function toUtf16(text, codepoints) {
  let units = 0;
  let seen = 0;
  for (const ch of text) {
    if (seen === codepoints) break;
    units += ch.length;
    seen += 1;
  }
  if (seen !== codepoints) throw new RangeError("offset past the text");
  return units;
}

/** The text node and offset of a UTF-16 position among `container`'s text nodes. */
function boundary(container, offset, preferEnd) {
  const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
  let seen = 0;
  let node = walker.nextNode();
  while (node) {
    const length = node.data.length;
    if (offset < seen + length || (preferEnd && offset === seen + length)) {
      return [node, offset - seen];
    }
    seen += length;
    node = walker.nextNode();
  }
  throw new RangeError("offset past the rendered text");
}

function renderText(text, blocks) {
  article.replaceChildren();
  article.tabIndex = 0; // a tab stop only once there is text to read
  let position = 0;
  const units = [...blocks].sort((a, b) => a.range.start - b.range.start);
  const cps = Array.from(text); // code points, so block ranges slice correctly
  const slice = (a, b) => cps.slice(a, b).join("");
  for (const block of units) {
    if (block.range.start > position) {
      article.append(document.createTextNode(slice(position, block.range.start)));
    }
    const span = document.createElement("span");
    span.className = "block";
    span.dataset.block = block.block_id;
    span.dataset.locator = block.locator;
    span.textContent = slice(block.range.start, block.range.end);
    article.append(span);
    position = block.range.end;
  }
  if (position < cps.length) article.append(document.createTextNode(slice(position, cps.length)));
}

function highlight(range) {
  const marks = [];
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (range.intersectsNode(node)) nodes.push(node);
  }
  for (const node of nodes) {
    let start = node === range.startContainer ? range.startOffset : 0;
    let end = node === range.endContainer ? range.endOffset : node.data.length;
    if (start >= end) continue;
    let middle = node;
    if (start > 0) middle = node.splitText(start);
    if (end - start < middle.data.length) middle.splitText(end - start);
    const mark = document.createElement("mark");
    mark.className = "ragox-hl";
    middle.replaceWith(mark);
    mark.append(middle);
    marks.push(mark);
  }
  return marks;
}

async function showPages(key, resolution, anchor) {
  const pages = resolution.target ? resolution.target.pages : [];
  if (!pages.length) return;
  const base = documentPath(anchor.document_id, anchor.revision);
  const byPage = new Map(pages.map((p) => [p.page, p.rects]));
  let current = pages[0].page;
  pageNav.hidden = false;
  pageBox.hidden = false;
  const draw = async () => {
    const response = await api(`${base}/pages/${current}`, key);
    if (!response.ok) {
      current -= 1;
      return;
    }
    const url = URL.createObjectURL(await response.blob());
    const img = new Image();
    img.alt = `Page ${current} of the original PDF`;
    img.src = url;
    await img.decode();
    pageBox.replaceChildren(img);
    pageBox.dataset.page = String(current);
    document.getElementById("pageno").textContent = `Page ${current}`;
    const width = img.naturalWidth / PDF_ZOOM;
    const height = img.naturalHeight / PDF_ZOOM;
    for (const [x0, y0, x1, y1] of byPage.get(current) || []) {
      const box = document.createElement("div");
      box.className = "rect";
      box.style.left = `${(x0 / width) * 100}%`;
      box.style.top = `${(y0 / height) * 100}%`;
      box.style.width = `${((x1 - x0) / width) * 100}%`;
      box.style.height = `${((y1 - y0) / height) * 100}%`;
      pageBox.append(box);
    }
  };
  document.getElementById("prev").onclick = async () => {
    if (current > 1) { current -= 1; await draw(); }
  };
  document.getElementById("next").onclick = async () => { current += 1; await draw(); };
  document.getElementById("original").onclick = async (event) => {
    event.preventDefault();
    const response = await api(`${base}/original`, key);
    const link = document.createElement("a");
    link.href = URL.createObjectURL(await response.blob());
    link.download = anchor.document_id.split("/").pop();
    link.click();
  };
  await draw();
}

/** The document's path under /v1 (the revision's, when one is named). */
function documentPath(documentId, revision) {
  const base = `/v1/documents/${encodeURIComponent(documentId)}`;
  return revision === undefined ? base : `${base}/revisions/${encodeURIComponent(revision)}`;
}

/** After a refusal: name the document and offer its text, plainly unverified. The API
 * names the document only to a reader who passed the access check (never for
 * ACCESS_DENIED), and the text request is authorized again when the link is used. */
function offerUnverified(key, resolution) {
  if (!resolution.document_id || resolution.status === "ACCESS_DENIED") return;
  const { document_id: documentId, revision } = resolution;
  const note = document.createElement("p");
  note.className = "meta";
  note.textContent = `Unverified: the citation named document “${documentId}”` +
    ` revision ${revision}; no passage is highlighted.`;
  const line = document.createElement("p");
  const link = document.createElement("a");
  link.id = "unverified-link";
  link.href = "#document";
  link.textContent = "Open the document as it is now (unverified, nothing highlighted)";
  link.onclick = async (event) => {
    event.preventDefault();
    const response = await api(`${documentPath(documentId, revision)}/text`, key);
    if (!response.ok) {
      line.textContent = "The document is not available to you.";
      return;
    }
    const doc = await response.json();
    renderText(doc.text, doc.blocks);
    article.classList.add("unverified");
    article.setAttribute("aria-label", "Document text, unverified: nothing is highlighted");
    line.textContent = "Below: the document as it is now. The cited passage could not be " +
      "verified in it, so nothing is highlighted.";
    article.focus();
  };
  line.append(link);
  unverifiedBox.replaceChildren(note, line);
  unverifiedBox.hidden = false;
}

/** A resolved anchor on a representation that is no longer current: say so plainly,
 * and name the anchor a rebuild migrated it to, when there is one. */
async function noticeNotCurrent(key, anchor, successor) {
  let message = "This passage is verified in an older version of this document's text;" +
    " the document has been re-extracted since.";
  if (successor) {
    const link = document.createElement("a");
    link.href = `/view/anchors/${encodeURIComponent(successor.anchor_id)}`;
    link.textContent = `anchor ${successor.anchor_id.slice(0, 16)}`;
    link.dataset.ragoxSuccessor = successor.anchor_id;
    noticeLine.replaceChildren(
      `${message} It was migrated to `, link,
      ` (revision ${successor.revision}, ${successor.parser}).`);
    noticeLine.hidden = false;
    return;
  }
  const response = await api(documentPath(anchor.document_id), key);
  if (response.ok) {
    const info = await response.json();
    if (info.current_revision && info.current_revision !== anchor.revision) {
      message = `A newer revision of this document exists (${info.current_revision}): ` +
        `this passage is verified in revision ${anchor.revision}, which is no longer current.`;
    }
  }
  noticeLine.textContent = message;
  noticeLine.hidden = false;
}

async function open(key) {
  const anchorId = decodeURIComponent(location.pathname.split("/").pop());
  const response = await api(`/v1/anchors/${encodeURIComponent(anchorId)}`, key);
  const resolution = await response.json();
  if (resolution.status !== "RESOLVED") {
    offerUnverified(key, resolution);
    setState(resolution.status, MESSAGES[resolution.status] || MESSAGES.ERROR);
    return;
  }
  const anchor = resolution.anchor;
  whereLine.textContent = `${anchor.document_id} · revision ${anchor.revision}` +
    (resolution.current ? "" : " (not the current revision)");
  root.dataset.ragoxCurrent = String(resolution.current);
  if (!resolution.current) await noticeNotCurrent(key, anchor, resolution.successor);
  // The representation the anchor resolved against (a rebuild keeps the old one).
  const textPath = `${documentPath(anchor.document_id, anchor.revision)}/text` +
    `?manifest_id=${encodeURIComponent(resolution.manifest_id)}`;
  const docResponse = await api(textPath, key);
  if (!docResponse.ok) {
    setState("ACCESS_DENIED", MESSAGES.ACCESS_DENIED);
    return;
  }
  const doc = await docResponse.json();
  renderText(doc.text, doc.blocks);
  const { start, end } = resolution.range; // code points, as the resolver names them
  const u16start = toUtf16(doc.text, start);
  const u16end = toUtf16(doc.text, end);
  unitLine.textContent = `Range [${start}, ${end}) in Unicode code points ` +
    `(UTF-16 [${u16start}, ${u16end}) in this page).`;
  const range = document.createRange();
  const [startNode, startOffset] = boundary(article, u16start, false);
  const [endNode, endOffset] = boundary(article, u16end, true);
  range.setStart(startNode, startOffset);
  range.setEnd(endNode, endOffset);
  if (range.toString() !== anchor.quote.exact) {
    setState("HIGHLIGHT_MISMATCH", MESSAGES.HIGHLIGHT_MISMATCH);
    return;
  }
  const marks = highlight(range);
  const shown = marks.map((m) => m.textContent).join("");
  if (shown !== anchor.quote.exact) {
    for (const mark of marks) mark.replaceWith(...mark.childNodes);
    setState("HIGHLIGHT_MISMATCH", MESSAGES.HIGHLIGHT_MISMATCH);
    return;
  }
  setState("RESOLVED", "Verified: this is exactly the cited passage.");
  if (doc.media_type === "application/pdf") {
    await showPages(key, resolution, anchor);
    const rect = pageBox.querySelector(".rect");
    (rect || marks[0]).scrollIntoView({ block: "center" });
  } else {
    marks[0].scrollIntoView({ block: "center" });
  }
}

async function main() {
  const key = apiKey();
  if (!key) {
    const form = document.getElementById("login");
    form.hidden = false;
    setState("LOGIN", "Enter an API key to open this passage.");
    form.onsubmit = (event) => {
      event.preventDefault();
      sessionStorage.setItem("ragox-key", document.getElementById("key").value);
      location.reload();
    };
    return;
  }
  try {
    await open(key);
  } catch (error) {
    setState(error.message === "unauthorized" ? "LOGIN" : "ERROR",
      error.message === "unauthorized" ? "The API key was refused." : MESSAGES.ERROR);
  }
}

main();
