// A resolution status as an icon with text (never colour alone).
export const STATUS = {
  RESOLVED: ["✓", "Verified"],
  ACCESS_DENIED: ["⊘", "No access"],
  SOURCE_CHANGED: ["⚠", "Source changed"],
  AMBIGUOUS: ["⚠", "Ambiguous"],
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
