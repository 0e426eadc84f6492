// The route list of /v1/docs, read from our own OpenAPI document: no third-party
// script runs on the viewer's origin (the page is served under the viewer's CSP).
"use strict";

(async function listRoutes() {
  const state = document.getElementById("docs-state");
  const body = document.querySelector("#routes tbody");
  try {
    const response = await fetch("/v1/openapi.json");
    if (!response.ok) throw new Error(String(response.status));
    const spec = await response.json();
    for (const [path, operations] of Object.entries(spec.paths || {})) {
      for (const [method, operation] of Object.entries(operations)) {
        const row = body.insertRow();
        row.insertCell().textContent = method.toUpperCase();
        const where = row.insertCell();
        const code = document.createElement("code");
        code.textContent = path;
        where.appendChild(code);
        row.insertCell().textContent = operation.summary || "";
      }
    }
  } catch (error) {
    state.textContent = "The route list could not be loaded; see /v1/openapi.json.";
  }
})();
