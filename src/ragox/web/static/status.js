// A resolution status as an icon with text (never colour alone), in the page's language.
import { t } from "/view/static/i18n.js";

export const STATUS = {
  RESOLVED: ["✓", t("status.RESOLVED")],
  ACCESS_DENIED: ["⊘", t("status.ACCESS_DENIED")],
  SOURCE_CHANGED: ["⚠", t("status.SOURCE_CHANGED")],
  AMBIGUOUS: ["⚠", t("status.AMBIGUOUS")],
  // the web app could not check it again just now (offline, a failing server)
  UNCHECKED: ["?", t("status.UNCHECKED")],
};

export function statusBadge(status) {
  const [icon, text] = STATUS[status] || ["⚠", status.replaceAll("_", " ").toLowerCase()];
  const badge = document.createElement("span");
  badge.className = `badge ${status === "RESOLVED" ? "ok" : "bad"}`;
  const mark = document.createElement("span");
  mark.setAttribute("aria-hidden", "true");
  mark.textContent = `${icon} `;
  badge.append(mark, document.createTextNode(text));
  return badge;
}
