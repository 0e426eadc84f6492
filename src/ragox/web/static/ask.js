// Ask a question, show the answer with numbered citations, open a citation beside it.
const root = document.getElementById("ragox-ask");
const answer = document.getElementById("answer");
const sources = document.getElementById("sources");
const frame = document.getElementById("passage");

function key() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("key")) {
    sessionStorage.setItem("ragox-key", fragment.get("key"));
    history.replaceState(null, "", location.pathname);
  }
  return sessionStorage.getItem("ragox-key") || "";
}

function open(anchorId) {
  frame.hidden = false;
  frame.src = `/view/anchors/${encodeURIComponent(anchorId)}`;
}

document.getElementById("ask").onsubmit = async (event) => {
  event.preventDefault();
  root.dataset.ragoxState = "ASKING";
  answer.textContent = "…";
  sources.replaceChildren();
  const response = await fetch("/v1/ask", {
    method: "POST",
    headers: { Authorization: `Bearer ${key()}`, "Content-Type": "application/json" },
    body: JSON.stringify({ question: document.getElementById("question").value }),
  });
  if (!response.ok) {
    root.dataset.ragoxState = "ERROR";
    answer.textContent = response.status === 401 ? "The API key was refused." : "The question could not be answered.";
    return;
  }
  const body = await response.json();
  root.dataset.ragoxState = body.abstained ? "ABSTAINED" : "ANSWERED";
  answer.textContent = body.answer;
  for (const citation of body.citations) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cite";
    button.dataset.anchor = citation.anchor.anchor_id;
    button.textContent = `[${citation.source_id}] ${citation.anchor.document_id} · ${citation.status}`;
    button.onclick = () => open(citation.anchor.anchor_id);
    item.append(button);
    sources.append(item);
  }
};
key();
