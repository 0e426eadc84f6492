// A verified quote as a reader should see it, every character kept: a word a PDF broke
// at a line end ("pre-\ndefined") is shown joined, its hyphen and line break kept as
// hidden text (class "joined"), so that the element's text stays the quote exactly
// (as the server's display text, ragox.text.join_broken_words: a lower-case letter,
// "-", the line end and its indentation, a lower-case letter of the same script, not
// a conjunction; "Debian-\nSystem", "Unix-\nверсии" and "Wort-\nund" keep theirs).

const BROKEN = /(?<=(\p{Ll}))-\n[ \t]*(?=(\p{Ll}\p{L}*))/gu;
const SCRIPTS = [/\p{Script=Latin}/u, /\p{Script=Cyrillic}/u, /\p{Script=Greek}/u];
// a hyphen before a conjunction stands for a part said once ("Wort- und Satzzeichen")
const SUSPENDED = /^(?:und|oder|bzw|sowie|and|и|или)$/iu;

function broken(found) {
  const [, last, word] = found;
  if (SUSPENDED.test(word)) return false;
  return SCRIPTS.some((script) => script.test(last) && script.test(word[0]));
}

/** The text as nodes: text nodes, and a hidden span for each broken word's break. */
export function readableNodes(text) {
  const nodes = [];
  let at = 0;
  for (const found of text.matchAll(BROKEN)) {
    if (!broken(found)) continue;
    if (found.index > at) nodes.push(document.createTextNode(text.slice(at, found.index)));
    const joined = document.createElement("span");
    joined.className = "joined";
    joined.textContent = found[0];
    nodes.push(joined);
    at = found.index + found[0].length;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}

/** The text with each broken word joined (for context around a quote, not the quote). */
export function joinBrokenWords(text) {
  return text.replace(BROKEN, (...args) => (broken(args) ? "" : args[0]));
}
