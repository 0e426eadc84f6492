"""Real text documents for the scale benchmark, as ``(name, text)`` in a fixed order.

Sources, all real prose or reference text: the Debian manuals that
``scripts/fetch_realdocs`` unpacks into ``.cache/realdocs/`` (HTML, reduced to its
text with selectolax), this machine's ``/usr/share/doc`` (READMEs, change logs,
copyright notes, Markdown and reStructuredText), the docstrings of installed Python
packages (one document per module), and XQuAD's paragraphs (one document per
article and language).
"""

from __future__ import annotations

import ast
import gzip
import json
import sysconfig
from collections.abc import Iterator
from pathlib import Path

from _corpus import xquad_file

ROOT = Path(__file__).resolve().parent.parent
REALDOCS = [ROOT / ".cache" / "realdocs"]
USR_DOC = Path("/usr/share/doc")
#: too short to be a document worth a chunk; too long: a generated dump
MIN_CHARS = 400
MAX_CHARS = 400_000
_TEXT_SUFFIXES = (".txt", ".md", ".rst", ".gz")
#: packages whose docstrings are read (well documented, and the whole of
#: site-packages would take minutes to parse)
DOCSTRING_PACKAGES = ("numpy", "click", "httpx", "docutils", "pygments", "sqlalchemy", "nltk")
_TEXT_NAMES = ("README", "NEWS", "TODO", "AUTHORS", "copyright", "THANKS", "FAQ")


def _realdocs() -> Iterator[tuple[str, str]]:
    from selectolax.lexbor import LexborHTMLParser as HTMLParser

    for folder in REALDOCS:
        if folder.is_dir():
            for path in sorted(folder.rglob("*.html")):
                tree = HTMLParser(path.read_bytes())
                body = tree.body
                text = body.text(separator="\n") if body is not None else ""
                yield f"realdocs/{path.relative_to(folder)}", text
            return


def _usr_doc() -> Iterator[tuple[str, str]]:
    for path in sorted(USR_DOC.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        name = path.name
        if not (name.endswith(_TEXT_SUFFIXES) or name.startswith(_TEXT_NAMES)):
            continue
        try:
            data = path.read_bytes()
            if name.endswith(".gz"):
                if not any(k in name for k in ("changelog", "NEWS", "README", "txt")):
                    continue
                data = gzip.decompress(data)
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile):
            continue
        yield f"usrdoc/{path.relative_to(USR_DOC)}", text


def _docstrings() -> Iterator[tuple[str, str]]:
    site = Path(sysconfig.get_paths()["purelib"])
    paths = sorted(p for package in DOCSTRING_PACKAGES for p in (site / package).rglob("*.py"))
    for path in paths:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            continue
        parts = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc and len(doc) > 80:
                    parts.append(doc)
        yield f"docstrings/{path.relative_to(site)}", "\n\n".join(parts)


def _xquad() -> Iterator[tuple[str, str]]:
    for lang in ("en", "de", "ru"):
        data = json.loads(xquad_file(lang).read_text(encoding="utf-8"))
        for n, article in enumerate(data["data"]):
            text = "\n\n".join(p["context"] for p in article["paragraphs"])
            yield f"xquad/{lang}/{n}", text


def documents() -> list[tuple[str, str]]:
    """Every usable document once, in a fixed order (sources interleaved by kind)."""
    found: list[tuple[str, str]] = []
    for source in (_realdocs, _usr_doc, _xquad, _docstrings):
        for name, raw in source():
            text = raw.replace("\x00", "")
            if MIN_CHARS <= len(text) <= MAX_CHARS:
                found.append((name, text))
    return found
