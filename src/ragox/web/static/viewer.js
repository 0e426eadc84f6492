// The ragox passage viewer: resolves an anchor through the API, renders the
// representation as text nodes (never as HTML), converts the resolver's code-point
// range to UTF-16 offsets and DOM Range boundaries, re-checks the exact quote, and
// only then highlights. A mismatch is an error state, never a guessed highlight.
// Blocks are rendered by kind (headings, lists, code, tables), still as text nodes of
// the representation in text order: the gaps between blocks stay in the DOM, hidden.
import { forget, obtainKey, onKeyChange, signIn } from "/view/static/session.js";
import { LANG, localize, t, withLanguage } from "/view/static/i18n.js";
import { readableNodes } from "/view/static/readable.js";

localize();

const root = document.getElementById("ragox-viewer");
const stateLine = document.getElementById("state");
const whereLine = document.getElementById("where");
const unitLine = document.getElementById("unit");
const locationLine = document.getElementById("location");
const noticeLine = document.getElementById("notice");
const precisionLine = document.getElementById("precision");
const languageLine = document.getElementById("language");
const unverifiedBox = document.getElementById("unverified");
const article = document.getElementById("document");
const pageBox = document.getElementById("page");
const pageNav = document.getElementById("pages");
const PDF_ZOOM = 1.5; // the API renders pages at this zoom
const phone = window.matchMedia("(max-width: 600px)");

/** What each refusal means for the reader, in the page's language. */
const MESSAGES = Object.fromEntries([
  "ACCESS_DENIED", "MANIFEST_INVALID", "SOURCE_CHANGED", "PARSER_MISMATCH", "PROFILE_MISMATCH",
  "TEXT_CHANGED", "INVALID_RANGE", "QUOTE_NOT_FOUND", "AMBIGUOUS", "POSITION_MISMATCH",
  "HIGHLIGHT_MISMATCH", "ERROR",
].map((status) => [status, t(`viewer.${status}`)]));

function setState(status, message) {
  root.dataset.ragoxStatus = status;
  stateLine.textContent = message;
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

/** The heading level of a block, from an HTML locator's h1–h6 (else 2), one below the
 * page's own h1. */
function headingTag(block) {
  const found = /\/h([1-6])(?:\[|$)/.exec(block.locator || "");
  const outline = /^§ ([\d.]+)$/.exec(block.locator || ""); // a Word heading: § 2.1
  const level = found ? Number(found[1]) : outline ? outline[1].split(".").length : 2;
  return `h${Math.min(6, level + 1)}`;
}

/** The row a table cell belongs to: its place in the table model when the block
 * carries one, else its HTML tr, or its Markdown line. */
function rowOf(block) {
  if (block.cell) return `row ${block.cell.row}`;
  const html = /^(.*\/tr(?:\[\d+\])?)\//.exec(block.locator || "");
  if (html) return html[1];
  const office = /^(.* › row \d+), column \d+$/.exec(block.locator || ""); // DOCX, PPTX
  if (office) return office[1];
  const cell = /^(.*)![A-Z]+(\d+)(?::[A-Z]+\d+)?$/.exec(block.locator || ""); // XLSX
  if (cell) return `${cell[1]}!${cell[2]}`;
  const lines = /^lines=(\d+)/.exec(block.locator || "");
  return lines ? lines[1] : block.block_id;
}

function tableOf(block) {
  if (block.cell) return `table ${block.cell.table}`;
  const html = /^(.*\/table(?:\[\d+\])?)\//.exec(block.locator || "");
  if (html) return html[1];
  const office = /^(.*) › row \d+, column \d+$/.exec(block.locator || "");
  if (office) return office[1];
  const cell = /^(.*)![A-Z]+\d+(?::[A-Z]+\d+)?$/.exec(block.locator || "");
  return cell ? cell[1] : "";
}

/** Where the passage lies, as a person finds it: the locators of the blocks it covers
 * ("§ 1.2 Pricing › paragraph 3", "slide 7 › shape 'Title 1'", "Sheet Prices!B12"), a
 * Word section named by its heading's text from the representation. */
export function describeLocation(targets, blocks, text) {
  const cps = Array.from(text);
  const headings = new Map(blocks.filter((b) => b.kind === "heading")
    .map((b) => [b.locator, cps.slice(b.range.start, b.range.end).join("")]));
  const names = targets.map((target) => {
    const section = /^(§ [\d.]+)( › .*)?$/.exec(target.locator);
    const title = section && headings.get(section[1]);
    if (title && target.locator !== section[1]) return `${section[1]} ${title}${section[2]}`;
    if (/![A-Z]+\d+(?::[A-Z]+\d+)?$/.test(target.locator)) return t("viewer.sheet", target);
    return target.locator;
  });
  const shown = names.length > 3 ? [names[0], "…", names[names.length - 1]] : names;
  return shown.join("; ");
}

export function renderText(text, blocks) {
  article.replaceChildren();
  article.tabIndex = 0; // a tab stop only once there is text to read
  let position = 0;
  const units = [...blocks].sort((a, b) => a.range.start - b.range.start);
  const cps = Array.from(text); // code points, so block ranges slice correctly
  const slice = (a, b) => cps.slice(a, b).join("");
  let container = null; // the open list or table, with its kind and row
  let into = article;
  const gap = (value) => {
    if (!value) return;
    if (/^\s*$/.test(value)) { // the blank lines between blocks: kept as text, not shown
      const span = document.createElement("span");
      span.className = "gap";
      span.textContent = value;
      into.append(span);
    } else {
      into.append(document.createTextNode(value));
    }
  };
  for (const block of units) {
    const between = block.range.start > position ? slice(position, block.range.start) : "";
    const kind = block.kind || "paragraph";
    const list = kind === "list-item";
    const cell = kind === "table-cell";
    const sameList = list && container && container.kind === "list";
    const sameTable = cell && container && container.kind === "table" && container.table === tableOf(block);
    if (!sameList && !sameTable) {
      container = null;
      into = article;
    }
    gap(between);
    let element;
    if (list) {
      if (!container) {
        const tag = /\/ol(?:\[|\/)/.test(block.locator || "") ? "ol" : "ul";
        const node = document.createElement(tag);
        node.className = "doc-list";
        article.append(node);
        container = { kind: "list", node };
        into = node;
      }
      element = document.createElement("li");
    } else if (cell) {
      if (!container) {
        const node = document.createElement("table");
        node.className = "doc-table";
        article.append(node);
        container = { kind: "table", node, table: tableOf(block), row: null, tr: null };
      }
      if (container.row !== rowOf(block)) {
        container.row = rowOf(block);
        container.tr = document.createElement("tr");
        container.node.append(container.tr);
      }
      into = container.tr;
      const header = block.cell ? block.cell.header : /\/th(?:\[|$)/.test(block.locator || "");
      element = document.createElement(header ? "th" : "td");
      if (block.cell) {
        // The table model: spans, and each cell's header cells for assistive technology.
        element.id = `cell-${block.block_id}`;
        if (block.cell.row_span > 1) element.rowSpan = block.cell.row_span;
        if (block.cell.col_span > 1) element.colSpan = block.cell.col_span;
        if (block.cell.header_ids.length) {
          element.setAttribute("headers", block.cell.header_ids.map((id) => `cell-${id}`).join(" "));
        }
      }
    } else if (kind === "heading") {
      element = document.createElement(headingTag(block));
    } else if (kind === "code") {
      element = document.createElement("pre");
    } else if (kind === "quote") {
      element = document.createElement("blockquote");
    } else {
      element = document.createElement("p");
    }
    element.classList.add("block", `k-${kind}`);
    // Each block takes the direction of its own text (its first strong character,
    // as Unicode's bidi algorithm rule P2 finds it): Arabic and Hebrew blocks read
    // right to left, with numbers and Latin words inside them placed by the browser.
    element.dir = "auto";
    element.dataset.block = block.block_id;
    element.dataset.locator = block.locator;
    if (kind === "code") {
      const code = document.createElement("code");
      code.textContent = slice(block.range.start, block.range.end);
      element.append(code);
    } else {
      element.textContent = slice(block.range.start, block.range.end);
    }
    into.append(element);
    position = block.range.end;
  }
  into = article;
  if (position < cps.length) gap(slice(position, cps.length));
}

/** How a header cell relates to the cited cell: it heads its column, its row, or a
 * group of rows or columns. */
function headerRole(header, cell) {
  const overlaps = (a, aSpan, b, bSpan) => a < b + bSpan && b < a + aSpan;
  if (header.row < cell.row && overlaps(header.col, header.col_span, cell.col, cell.col_span)) {
    return "column";
  }
  if (header.col < cell.col && overlaps(header.row, header.row_span, cell.row, cell.row_span)) {
    return "row";
  }
  return "group";
}

const ROLE_LABELS = {
  column: t("viewer.role-column"), row: t("viewer.role-row"), group: t("viewer.role-group"),
};

/** Mark the header cells of the cited table cells as context (never as the passage):
 * their own style, a description for screen readers, a line naming them, and on a PDF
 * page their rectangles. Returns the header rectangles by page. */
function markCellContext(doc, resolution) {
  const byId = new Map(doc.blocks.map((b) => [b.block_id, b]));
  const cited = (resolution.target ? resolution.target.blocks : [])
    .map((t) => byId.get(t.block_id)).filter((b) => b && b.cell);
  const line = document.getElementById("cellcontext");
  const rects = new Map();
  if (!cited.length) return rects;
  const cps = Array.from(doc.text);
  const textOf = (b) => cps.slice(b.range.start, b.range.end).join("").replace(/\s+/g, " ").trim();
  const names = { column: [], row: [], group: [] };
  const seen = new Set();
  for (const block of cited) {
    for (const id of block.cell.header_ids) {
      const header = byId.get(id);
      if (!header || !header.cell || seen.has(id)) continue;
      seen.add(id);
      const role = headerRole(header.cell, block.cell);
      names[role].push(textOf(header));
      const element = article.querySelector(`[data-block="${id}"]`);
      if (element) {
        element.classList.add("ragox-context");
        element.dataset.ragoxContext = role;
        element.setAttribute("aria-describedby", `context-${role}`);
      }
      if (header.page && header.bbox) {
        if (!rects.has(header.page)) rects.set(header.page, []);
        rects.get(header.page).push(header.bbox);
      }
    }
  }
  const first = cited[0].cell;
  const parts = [t("viewer.cell", { row: first.row + 1, column: first.col + 1 })];
  for (const role of ["column", "row", "group"]) {
    if (names[role].length) parts.push(`${ROLE_LABELS[role]}: ${names[role].join(" / ")}.`);
  }
  line.textContent = parts.join(" ");
  line.hidden = false;
  for (const mark of article.querySelectorAll("mark.ragox-hl")) {
    mark.setAttribute("aria-describedby", "cellcontext");
  }
  return rects;
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

/** On a phone, enlarge the page so the highlighted rectangles fill the screen's width. */
function zoomToPassage(sheet, rects, width) {
  if (!rects.length) return 1;
  const left = Math.min(...rects.map((r) => r[0]));
  const right = Math.max(...rects.map((r) => r[2]));
  const share = Math.max((right - left) / width, 0.05);
  const factor = Math.min(4, Math.max(1, 0.92 / share));
  sheet.style.width = `${factor * 100}%`;
  return factor;
}

/** The rectangles to draw per page: the passage's own (characters), or, given
 * `blockRects`, the rectangles of the blocks it lies in; `context`, the rectangles of
 * a cited table cell's header cells per page (drawn as context, not as the quote). */
async function showPages(key, resolution, anchor, labels, blockRects, context) {
  const pages = blockRects
    ? [...blockRects.entries()].map(([page, rects]) => ({ page, rects }))
    : resolution.target ? resolution.target.pages : [];
  if (!pages.length) return;
  const base = documentPath(anchor.document_id, anchor.revision);
  const byPage = new Map(pages.map((p) => [p.page, p.rects]));
  const ocrPages = new Set(pages.filter((p) => p.ocr).map((p) => p.page));
  let current = pages[0].page;
  pageNav.hidden = false;
  pageBox.hidden = false;
  const prevButton = document.getElementById("prev");
  const nextButton = document.getElementById("next");
  // the last page: one label per page; without labels, learnt at the first page past it
  let last = labels && labels.length ? labels.length : Infinity;
  // aria-disabled, not disabled: the buttons stay in the keyboard's path and say why
  // nothing happens (before, "Next page" on the last page asked for a page that does
  // not exist on every click, and nothing changed)
  const markEnds = () => {
    prevButton.setAttribute("aria-disabled", String(current <= 1));
    nextButton.setAttribute("aria-disabled", String(current >= last));
  };
  const draw = async () => {
    const response = await api(`${base}/pages/${current}`, key);
    if (!response.ok) {
      current -= 1;
      if (response.status === 404) last = current;
      markEnds();
      return;
    }
    markEnds();
    const url = URL.createObjectURL(await response.blob());
    const label = (labels && labels[current - 1]) || String(current);
    const img = new Image();
    img.alt = t("viewer.page-image", { label });
    img.src = url;
    await img.decode();
    const sheet = document.createElement("div");
    sheet.className = "sheet";
    sheet.append(img);
    pageBox.replaceChildren(sheet);
    pageBox.dataset.page = String(current);
    pageBox.dataset.label = label;
    document.getElementById("pageno").textContent = label === String(current)
      ? t("viewer.page", { label }) : t("viewer.page-sheet", { label, sheet: current });
    const width = img.naturalWidth / PDF_ZOOM;
    const height = img.naturalHeight / PDF_ZOOM;
    const rects = byPage.get(current) || [];
    const zoomButton = document.getElementById("zoom");
    zoomButton.hidden = !rects.length;
    const applyZoom = () => {
      const zoomed = zoomButton.getAttribute("aria-pressed") === "true";
      const factor = zoomed ? zoomToPassage(sheet, rects, width) : 1;
      if (!zoomed) sheet.style.width = "";
      pageBox.classList.toggle("zoomed", factor > 1);
      pageBox.dataset.zoom = String(factor);
      const first = sheet.querySelector(".rect");
      if (first && zoomed) {
        first.scrollIntoView({ block: "center", inline: "center" });
        // A cited cell's header, when it fits in the box together with the cell.
        const head = sheet.querySelector(".context-rect");
        if (head && first.offsetTop + first.offsetHeight - head.offsetTop < pageBox.clientHeight) {
          pageBox.scrollTop = Math.max(0, head.offsetTop - 8);
        }
      }
    };
    zoomButton.onclick = () => {
      zoomButton.setAttribute("aria-pressed", String(zoomButton.getAttribute("aria-pressed") !== "true"));
      applyZoom();
    };
    // On a page read by OCR the rectangles are whole blocks: the engine's character
    // boxes are estimates, so the page claims no character precision (seed 003).
    const ocrNote = document.getElementById("ocrnote");
    ocrNote.hidden = !ocrPages.has(current);
    for (const [x0, y0, x1, y1] of (context && context.get(current)) || []) {
      const box = document.createElement("div"); // a header cell: context, not the quote
      box.className = "context-rect";
      box.style.left = `${(x0 / width) * 100}%`;
      box.style.top = `${(y0 / height) * 100}%`;
      box.style.width = `${((x1 - x0) / width) * 100}%`;
      box.style.height = `${((y1 - y0) / height) * 100}%`;
      sheet.append(box);
    }
    for (const [x0, y0, x1, y1] of rects) {
      const box = document.createElement("div");
      const kinds = ["rect"];
      if (blockRects) kinds.push("block-rect");
      if (ocrPages.has(current)) kinds.push("ocr");
      box.className = kinds.join(" ");
      box.style.left = `${(x0 / width) * 100}%`;
      box.style.top = `${(y0 / height) * 100}%`;
      box.style.width = `${((x1 - x0) / width) * 100}%`;
      box.style.height = `${((y1 - y0) / height) * 100}%`;
      sheet.append(box);
    }
    if (phone.matches && rects.length) zoomButton.setAttribute("aria-pressed", "true");
    applyZoom();
  };
  prevButton.onclick = async () => {
    if (current > 1) { current -= 1; await draw(); }
  };
  nextButton.onclick = async () => {
    if (current < last) { current += 1; await draw(); }
  };
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
  note.textContent = t("viewer.unverified-note", { document: documentId, revision });
  const line = document.createElement("p");
  const link = document.createElement("a");
  link.id = "unverified-link";
  link.href = "#document";
  link.textContent = t("viewer.unverified-link");
  link.onclick = async (event) => {
    event.preventDefault();
    const response = await api(`${documentPath(documentId, revision)}/text`, key);
    if (!response.ok) {
      line.textContent = t("viewer.unavailable");
      return;
    }
    const doc = await response.json();
    renderText(doc.text, doc.blocks);
    article.classList.add("unverified");
    article.setAttribute("aria-label", t("viewer.unverified-text"));
    line.textContent = t("viewer.unverified-below");
    article.focus();
  };
  line.append(link);
  unverifiedBox.replaceChildren(note, line);
  unverifiedBox.hidden = false;
}

/** A resolved anchor on a representation that is no longer current: say so plainly,
 * whether the current revision still has the passage (``inCurrent``, the server's
 * check), and name the anchor a migration carried it to, when there is one. */
async function noticeNotCurrent(key, anchor, successor, inCurrent) {
  let message = t("viewer.older-text");
  // a migration into another revision: the source changed, it was not re-extracted
  const current = (inCurrent && inCurrent.revision) ||
    (successor && successor.revision !== anchor.revision ? successor.revision : null);
  if (current && current !== anchor.revision) {
    message = t("viewer.newer-revision", { current, revision: anchor.revision });
  }
  if (inCurrent && inCurrent.status === "RESOLVED") {
    message += t("viewer.in-current", { current: inCurrent.revision });
  } else if (inCurrent && inCurrent.status === "QUOTE_NOT_FOUND") {
    message += t("viewer.not-in-current", { current: inCurrent.revision });
  }
  if (successor) {
    const link = document.createElement("a");
    link.href = withLanguage(`/view/anchors/${encodeURIComponent(successor.anchor_id)}`);
    link.textContent = t("viewer.anchor", { anchor: successor.anchor_id.slice(0, 16) });
    link.dataset.ragoxSuccessor = successor.anchor_id;
    noticeLine.replaceChildren(
      `${message}${t("viewer.migrated")}`, link,
      t("viewer.migrated-where", successor));
    noticeLine.hidden = false;
    return;
  }
  if (!current) {
    const response = await api(documentPath(anchor.document_id), key);
    if (response.ok) {
      const info = await response.json();
      if (info.current_revision && info.current_revision !== anchor.revision) {
        message = t("viewer.newer-revision", {
          current: info.current_revision, revision: anchor.revision,
        });
      }
    }
  }
  noticeLine.textContent = message;
  noticeLine.hidden = false;
}

async function open(key) {
  const anchorId = decodeURIComponent(location.pathname.split("/").pop());
  const response = await api(`/v1/anchors/${encodeURIComponent(anchorId)}`, key);
  // a link that names no anchor at all ("a%2Fb"): as an unknown anchor, never a 404's body
  const resolution = response.status === 404
    ? { status: "ACCESS_DENIED", reason: "access_denied" }
    : await response.json();
  if (resolution.status !== "RESOLVED") {
    offerUnverified(key, resolution);
    setState(resolution.status, MESSAGES[resolution.status] || MESSAGES.ERROR);
    return;
  }
  const anchor = resolution.anchor;
  whereLine.textContent = `${anchor.document_id} · ${t("revision", anchor)}` +
    (resolution.current ? "" : t("viewer.not-current"));
  root.dataset.ragoxCurrent = String(resolution.current);
  if (!resolution.current) {
    await noticeNotCurrent(key, anchor, resolution.successor, resolution.in_current);
  }
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
  showLanguage(doc.language);
  const { start, end } = resolution.range; // code points, as the resolver names them
  const u16start = toUtf16(doc.text, start);
  const u16end = toUtf16(doc.text, end);
  unitLine.textContent = t("viewer.range", { start, end, start16: u16start, end16: u16end });
  const range = document.createRange();
  const [startNode, startOffset] = boundary(article, u16start, false);
  const [endNode, endOffset] = boundary(article, u16end, true);
  range.setStart(startNode, startOffset);
  range.setEnd(endNode, endOffset);
  if (range.toString() !== anchor.quote.exact) {
    setState("HIGHLIGHT_MISMATCH", MESSAGES.HIGHLIGHT_MISMATCH);
    return;
  }
  if ((doc.warnings || []).includes("RTL_VISUAL_ORDER")) {
    await showBlocks(key, resolution, anchor, doc, start, end);
    return;
  }
  const marks = highlight(range);
  const shown = marks.map((m) => m.textContent).join("");
  if (shown !== anchor.quote.exact) {
    for (const mark of marks) mark.replaceWith(...mark.childNodes);
    setState("HIGHLIGHT_MISMATCH", MESSAGES.HIGHLIGHT_MISMATCH);
    return;
  }
  setState("RESOLVED", t("viewer.verified"));
  const targets = resolution.target ? resolution.target.blocks : [];
  if (targets.length && doc.media_type !== "application/pdf") {
    locationLine.textContent = t("viewer.location", { where: describeLocation(targets, doc.blocks, doc.text) });
    locationLine.hidden = false;
  }
  const ocr = targets.some((b) => b.ocr);
  root.dataset.ragoxOcr = String(ocr);
  if (ocr) {
    for (const mark of marks) mark.classList.add("ocr");
  }
  const context = markCellContext(doc, resolution);
  if (doc.media_type === "application/pdf") {
    // At once: the page image takes a render (seconds on a busy server), and until it
    // comes the reader should see the passage, not the document's first lines.
    marks[0].scrollIntoView({ block: "center" });
    await showPages(key, resolution, anchor, doc.page_labels, null, context);
    const rect = pageBox.querySelector(".rect");
    (rect || marks[0]).scrollIntoView({ block: "center", inline: "center" });
    if (rect && phone.matches) showQuoted(shown, doc.language);
  } else {
    marks[0].scrollIntoView({ block: "center" });
  }
}

/** On a phone a whole PDF page is drawn about 6 px per line of text: the verified
 * quote (the highlighted text itself) is shown readable above the page with its
 * rectangles, and scrolled to. */
function showQuoted(text, language) {
  const figure = document.getElementById("quoted");
  const quote = document.getElementById("quoted-text");
  // The representation's blocks (a blank line apart) as paragraphs, the blank lines kept
  // as hidden text, so that the element's text stays the quote exactly. A word broken
  // at a line end is shown joined, its break hidden text too (readable.js).
  const parts = text.split(/(\n{2,})/);
  quote.replaceChildren(...parts.map((part, index) => {
    const span = document.createElement("span");
    span.className = index % 2 ? "gap" : "para";
    if (index % 2) span.textContent = part;
    else span.replaceChildren(...readableNodes(part));
    return span;
  }));
  if (language) quote.lang = language;
  figure.hidden = false;
  // the page's buttons ("Zoom to passage") above the quote, just below the sticky state
  // bar, whose height depends on its lines (before: it covered them)
  const nav = document.getElementById("pages");
  const target = nav.hidden ? figure : nav;
  target.style.scrollMarginTop = `${document.getElementById("statebar").offsetHeight + 4}px`;
  target.scrollIntoView({ block: "start" });
}

/** The document's language (given at ingestion, else detected), when known. */
function showLanguage(language) {
  if (!language) return;
  languageLine.textContent = t("viewer.language", { language });
  languageLine.lang = LANG;
  article.lang = language;
  root.dataset.ragoxLanguage = language;
}

/** A representation whose right-to-left text came out of the PDF in drawing order:
 * its characters are not in reading order, so a character highlight could fall on
 * the wrong glyphs. The blocks that hold the passage are marked instead, in the text
 * and on the page, and the reader is told why. */
async function showBlocks(key, resolution, anchor, doc, start, end) {
  const held = doc.blocks.filter((b) => b.range.start < end && b.range.end > start);
  for (const block of held) {
    const element = article.querySelector(`[data-block="${CSS.escape(block.block_id)}"]`);
    if (element) element.classList.add("ragox-block-hl");
  }
  root.dataset.ragoxPrecision = "block";
  precisionLine.textContent = t("viewer.rtl-order");
  precisionLine.hidden = false;
  setState("RESOLVED", t("viewer.verified-block"));
  const rects = new Map();
  for (const block of held) {
    if (!block.page || !block.bbox) continue;
    if (!rects.has(block.page)) rects.set(block.page, []);
    rects.get(block.page).push(block.bbox);
  }
  if (doc.media_type === "application/pdf" && rects.size) {
    await showPages(key, resolution, anchor, doc.page_labels, rects);
  }
  const first = pageBox.querySelector(".rect") || article.querySelector(".ragox-block-hl");
  if (first) first.scrollIntoView({ block: "center", inline: "center" });
}

/** The key form, with `message`: signed out, or the key refused (then it is offered
 * again, not only "Forget key"). */
function showLogin(message) {
  const form = document.getElementById("login");
  form.hidden = false;
  document.getElementById("forget").hidden = true;
  setState("LOGIN", message);
  form.onsubmit = (event) => {
    event.preventDefault();
    signIn(document.getElementById("key").value.trim());
    location.reload();
  };
}

async function main() {
  const key = await obtainKey(); // this tab's, or another open ragox tab's
  if (!key) {
    showLogin(t("viewer.enter-key"));
    return;
  }
  // forgotten (or replaced) in another tab: the passage was read with this key, so
  // it leaves the screen with it (before, it stayed shown after "Forget key" there)
  onKeyChange((now) => { if (now !== key) location.reload(); });
  if (window.top === window) { // framed in the ask page, that page offers it
    const out = document.getElementById("forget");
    out.hidden = false;
    out.onclick = () => { forget(); location.reload(); };
  }
  try {
    await open(key);
  } catch (error) {
    if (error.message === "unauthorized") {
      showLogin(t("viewer.key-refused")); // another key can be given here
    } else {
      setState("ERROR", MESSAGES.ERROR);
    }
  }
}

main();
