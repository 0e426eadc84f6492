"""Commands load only what they use (issue 15): ``status``, ``search``, ``ask`` and
``resolve`` on a home of text documents never import PyMuPDF (nor the PDF adapter),
numpy, httpx, the web stack or torch. Behaviour, not timing: the timing is in
``bench/bench_scale.py``."""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "fitz",
    "pymupdf",
    "numpy",
    "httpx",
    "fastapi",
    "uvicorn",
    "starlette",
    "torch",
    # the PDF adapter reads PyMuPDF's package metadata when imported (tens of ms)
    "ragox.extract.pdf",
    "importlib.metadata",
)

#: Loaded only by the commands that use them (issue 15): the parser and the dispatch
#: load the store and the service, never another command's machinery.
PIPELINES = (
    "ragox.ingest._pipeline",  # the extractors and the ingestion pipeline
    "ragox.search._embed",  # embedders (platformdirs, ctypes, HTTP clients)
    "ragox.service._verify",
    "ragox.service._check",
    "ragox.cli._reprocess",
    "ragox.cli._worker",
    "tqdm",
)
#: besides ``PIPELINES``: what each command does not use
NOT_USED = {
    "status": ("ragox.answer._pipeline", "ragox.search._search", "ragox.service._lookup"),
    "search": ("ragox.answer._pipeline", "ragox.service._lookup"),
    "ask": (),
    "resolve": ("ragox.answer._pipeline", "ragox.search._search", "ragox.search._analyze"),
    "anchor": ("ragox.answer._pipeline", "ragox.search._search"),
}

# Runs one command through the console entry point, then prints which heavy modules
# the interpreter holds (the command's own output goes to a file).
_PROBE = """
import io, json, sys
from ragox.cli import main
out = io.StringIO()
saved = sys.stdout
sys.stdout = out
try:
    code = main(sys.argv[1:])
finally:
    sys.stdout = saved
heavy = [m for m in {heavy!r} if m in sys.modules]
print(json.dumps({{"code": code, "heavy": heavy, "stdout": out.getvalue()}}))
"""


def _probe(home: Path, modules: tuple[str, ...], *args: str) -> dict[str, object]:
    """Runs the command ``args`` on ``home`` in a fresh interpreter: its exit code, its
    output and which of ``modules`` it loaded."""
    env = {**os.environ, "RAGOX_HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=modules), *args],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    result: dict[str, object] = json.loads(proc.stdout.decode().splitlines()[-1])
    return result


def _unused_loaded(home: Path, *args: str) -> list[str]:
    """The modules the command ``args`` loaded that it does not use."""
    result = _probe(home, (*HEAVY, *PIPELINES, *NOT_USED[args[0]]), *args)
    assert result["code"] == 0, result
    heavy = result["heavy"]
    assert isinstance(heavy, list)
    return [str(name) for name in heavy]


def _run(home: Path, *args: str) -> dict[str, object]:
    return _probe(home, HEAVY, *args)


@pytest.fixture(scope="module")
def text_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with one plain-text document (ingested in a process of its own)."""
    home = tmp_path_factory.mktemp("lazy")
    source = home.parent / "lazy-notes.txt"
    source.write_text(
        "The cooling pump is checked every Monday.\n\nThe backup runs at night.\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "ragox", "--home", str(home), "ingest", str(source), "--json"],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return home


def test_status_imports_no_heavy_module(text_home: Path) -> None:
    """`status --json` answers without loading PyMuPDF, numpy, httpx or the web stack."""
    result = _run(text_home, "status", "--json")
    assert result["code"] == 0
    assert "lazy-notes" in str(result["stdout"])
    assert result["heavy"] == []


def test_search_and_ask_import_no_heavy_module(text_home: Path) -> None:
    """A lexical search and an extractive answer need none of them either."""
    found = _run(text_home, "search", "cooling pump", "--json")
    assert found["code"] == 0
    assert "cooling pump" in str(found["stdout"])
    assert found["heavy"] == []
    answered = _run(text_home, "ask", "When is the cooling pump checked?", "--json")
    assert answered["code"] == 0
    assert "Monday" in str(answered["stdout"])
    assert answered["heavy"] == []


def test_resolve_imports_no_heavy_module(text_home: Path) -> None:
    """Resolving an anchor of a text document loads none of them."""
    made = _run(text_home, "anchor", "lazy-notes.txt", "--start", "4", "--end", "16", "--json")
    assert made["code"] == 0
    anchor_file = text_home.parent / "lazy-anchor.json"
    anchor_file.write_text(str(made["stdout"]), encoding="utf-8")
    resolved = _run(text_home, "resolve", str(anchor_file), "--json")
    assert resolved["code"] == 0
    assert json.loads(str(resolved["stdout"]))["status"] == "RESOLVED"
    assert resolved["heavy"] == []


def test_each_command_loads_only_what_it_uses(text_home: Path) -> None:
    """`status`, `search`, `ask`, `resolve` and `anchor` load neither the ingestion
    pipeline, the embedders, `verify`'s and `check`'s machinery nor other commands'
    modules; `status` and `resolve` load no search or answer pipeline either."""
    made = _run(text_home, "anchor", "lazy-notes.txt", "--start", "4", "--end", "16", "--json")
    anchor_id = json.loads(str(made["stdout"]))["anchor_id"]
    assert _unused_loaded(text_home, "status", "--json") == []
    assert _unused_loaded(text_home, "status") == []
    assert _unused_loaded(text_home, "search", "backup", "--json") == []
    assert _unused_loaded(text_home, "ask", "When does the backup run?", "--json") == []
    assert _unused_loaded(text_home, "resolve", anchor_id, "--json") == []
    assert _unused_loaded(text_home, "anchor", "lazy-notes.txt", "--start", "0", "--end", "3") == []


def test_the_parser_loads_no_command_machinery() -> None:
    """Importing the command line (its parser and dispatch) loads no pipeline: a command
    pays for its own imports only."""
    probe = (
        "import json, sys\n"
        "import ragox.cli\n"
        f"names = {(*HEAVY, *PIPELINES, 'ragox.answer._pipeline', 'ragox.search._search')!r}\n"
        "print(json.dumps([m for m in names if m in sys.modules]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout.decode()) == []


def test_pdf_parser_identity_matches_pymupdf() -> None:
    """The PDF parser identity, built without importing PyMuPDF, names the same
    version and flags PyMuPDF itself reports."""
    import pymupdf

    from ragox.extract.pdf import _FLAGS, PDF_PARSER

    assert PDF_PARSER.version == f"4+mupdf-{pymupdf.VersionBind}"  # 3: lines; 4: misencoded
    assert _FLAGS == (
        pymupdf.TEXT_PRESERVE_LIGATURES
        | pymupdf.TEXT_PRESERVE_WHITESPACE
        | pymupdf.TEXT_MEDIABOX_CLIP
    )


#: the packages whose exports load on first use (``ragox._lazy.lazy_exports``)
LAZY_PACKAGES = (
    "ragox.anchor",
    "ragox.answer",
    "ragox.eval",
    "ragox.ingest",
    "ragox.search",
    "ragox.service",
)


def _lazy_listings(package: str) -> tuple[dict[str, tuple[str, ...]], list[str], list[str]]:
    """A lazy package's table (module → names, read from its source), the names its
    ``if TYPE_CHECKING:`` block imports for type checkers and the public functions and
    classes it defines itself."""
    path = Path(importlib.import_module(package).__file__ or "")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    table: dict[str, tuple[str, ...]] | None = None
    typing_names: list[str] = []
    own = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_")
    ]
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            typing_names += [
                alias.asname or alias.name
                for imp in node.body
                if isinstance(imp, ast.ImportFrom)
                for alias in imp.names
            ]
        elif isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "_EXPORTS":
            table = ast.literal_eval(node.value)
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func) == "lazy_exports"
            and table is None
        ):
            table = ast.literal_eval(node.value.args[1])
    assert table is not None, f"{package}: no table of lazy exports"
    return table, typing_names, own


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_lazy_package_lists_each_export_alike(package: str) -> None:
    """A lazy package's table of where names load from, its ``__all__`` and its
    imports for type checkers name the same exports, each once, and each name loads
    the object its module defines: a name left out of one of them fails here."""
    module = importlib.import_module(package)
    table, typing_names, own = _lazy_listings(package)
    in_table = [name for names in table.values() for name in names]
    assert len(in_table) == len(set(in_table)), f"{package}: a name listed twice"
    assert sorted(typing_names) == sorted(in_table), package
    assert sorted(module.__all__) == sorted(in_table + own), package
    for where, names in table.items():
        source = importlib.import_module(where, package)
        for name in names:
            assert getattr(module, name) is getattr(source, name), (package, name)
        assert set(names) <= set(dir(module))


def test_search_across_partitions_skips_numpy_ma(tmp_path: Path) -> None:
    """A reader whose scope spans two lexical partitions is ranked with numpy, but not
    with ``numpy.ma`` (``np.unique`` imports it for its masked-array check: a tenth of
    numpy's import in every such command)."""
    home = tmp_path / "home"
    for group, text in (("a", "The cooling pump is checked."), ("b", "The pump runs.")):
        source = tmp_path / f"{group}.txt"
        source.write_text(text + "\n", encoding="utf-8")
        ingest = [sys.executable, "-m", "ragox", "--home", str(home), "ingest", str(source)]
        proc = subprocess.run(
            [*ingest, "--groups", group], capture_output=True, timeout=120, check=False
        )
        assert proc.returncode == 0, proc.stderr.decode()
    who = ("--principal", "reader", "--groups", "a,b")
    result = _probe(home, ("numpy", "numpy.ma"), "search", "pump", *who)
    assert result["code"] == 0
    assert "a.txt" in str(result["stdout"]) and "b.txt" in str(result["stdout"])
    assert result["heavy"] == ["numpy"]
