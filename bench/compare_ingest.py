"""Ingest the same files with two source trees and compare everything stored.

For changes that must keep ingestion's output byte-identical (issue 15): each tree
ingests the files into a fresh SQLite home, in its own process, and every stored row
of every document is dumped: representation (text, alignment, character boxes, notes),
blocks, manifest (without its creation time), search text and alignment with the
stage versions, chunks, lexical row bodies, the document's language and the
revision's state. Manifest and chunk ids contain the manifest's creation time, so
rows are keyed by document id and chunk ordinal instead. Prints the number of
documents, chunks and the first differences; exits 1 on any difference.

``python bench/compare_ingest.py MAIN_SRC BRANCH_SRC [PATH ...]`` (default paths:
``tests/data``, the Debian reference HTML pages under ``.cache/realdocs`` and 300
files of ``/usr/share/doc`` as ``bench_folder`` picks them).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent


def _files(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink()))
        elif path.is_file():
            found.append(path)
    return found


def _digest(value: object) -> object:
    """Large values as their SHA-256 (the dump stays small; equal digests, equal bytes)."""
    if isinstance(value, bytes) or (isinstance(value, str) and len(value) > 64):
        data = value.encode("utf-8") if isinstance(value, str) else value
        return f"sha256:{type(value).__name__}:{hashlib.sha256(data).hexdigest()}"
    return value


def dump(files: list[Path], out: Path) -> None:
    """Ingest ``files`` with the ragox on ``sys.path``; write the stored rows as JSON."""
    from ragox.service import Ragox

    rows: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as home:
        app = Ragox(Path(home))
        states: dict[str, str] = {}
        for number, path in enumerate(files):
            document_id = f"d{number:05d}"
            try:
                item = app.ingest_path(path, path.parent, document_id=document_id)
            except Exception as error:
                states[document_id] = f"raised {type(error).__name__}"
                continue
            outcome = item.outcome
            states[document_id] = (
                "none" if outcome is None else f"{outcome.state.value} {outcome.error_code}"
            )
        app.close()
        conn = sqlite3.connect(Path(home) / "ragox.db")
        rows["states"] = states
        manifests = {
            str(m): str(d)
            for m, d in conn.execute("SELECT manifest_id, document_id FROM manifests")
        }
        chunk_keys = {
            str(c): f"{manifests[str(m)]}#{o}"
            for c, m, o in conn.execute("SELECT chunk_id, manifest_id, ordinal FROM chunks")
        }

        def table(sql: str, skip: tuple[str, ...] = ()) -> list[list[object]]:
            cursor = conn.execute(sql)
            names = [d[0] for d in cursor.description]
            found = []
            for row in cursor:
                values: list[object] = []
                for name, value in zip(names, row, strict=True):
                    if name in skip:
                        continue
                    if name == "manifest_id":
                        values.append(manifests.get(str(value), "?"))
                    elif name == "chunk_id":
                        values.append(chunk_keys.get(str(value), "?"))
                    else:
                        values.append(_digest(value))
                found.append(values)
            return sorted(found, key=repr)

        for name in ("representations", "blocks", "search_texts", "chunks"):
            rows[name] = table(f"SELECT * FROM {name}")
        manifest_rows = []
        for document_id, text in conn.execute("SELECT document_id, json FROM manifests"):
            manifest = json.loads(text)
            for volatile in ("created_at", "manifest_id", "revision"):
                manifest.pop(volatile, None)
            manifest_rows.append([document_id, _digest(json.dumps(manifest, sort_keys=True))])
        rows["manifests"] = sorted(manifest_rows)
        rows["revisions"] = table(
            "SELECT document_id, revision, state, manifest_id, error_code FROM revisions"
        )
        rows["documents"] = table("SELECT document_id, current_revision, language FROM documents")
        bodies = []
        for (name,) in conn.execute("SELECT name FROM lexical_partitions"):
            bodies += conn.execute(
                f"SELECT c.chunk_id, t.body FROM {name} t JOIN chunks c ON c.rowid = t.rowid"
            ).fetchall()
        rows["lexical"] = sorted([chunk_keys[str(c)], _digest(b)] for c, b in bodies)
        conn.close()
    out.write_text(json.dumps(rows))


def _run(src: Path, files: list[Path], out: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(src)}
    listing = out.with_suffix(".files")
    listing.write_text("\n".join(map(str, files)))
    subprocess.run(
        [sys.executable, __file__, "--dump", str(listing), str(out)], env=env, check=True
    )


def compare(main_src: Path, branch_src: Path, paths: list[Path]) -> int:
    files = _files(paths)
    with tempfile.TemporaryDirectory() as tmp:
        outs = []
        for label, src in (("main", main_src), ("branch", branch_src)):
            out = Path(tmp) / f"{label}.json"
            _run(src, files, out)
            outs.append(json.loads(out.read_text()))
    first, second = outs
    differences = 0
    for key in first:
        a, b = first[key], second.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            diff = [
                (k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)
            ]
        else:
            extra_a = [r for r in a if r not in b] if isinstance(b, list) else a
            extra_b = [r for r in b if r not in a] if isinstance(b, list) else b
            diff = [("main only", extra_a[:3]), ("branch only", extra_b[:3])]
        differences += 1
        print(f"DIFFERENT {key}: {str(diff)[:1500]}")
    states = first["states"]
    ready = sum(1 for s in states.values() if s.startswith("READY"))
    print(
        f"{len(files)} files ({ready} READY), {len(first['chunks'])} chunks, "
        f"{len(first['blocks'])} blocks, {len(first['lexical'])} lexical rows: "
        + ("identical" if not differences else f"{differences} tables differ")
    )
    return 1 if differences else 0


def _default_paths() -> list[Path]:
    sys.path.insert(0, str(HERE))
    from bench_folder import build_folder

    paths = [HERE.parent / "tests" / "data"]
    debian = HERE.parent / ".cache/realdocs/debian-reference-en/usr/share/debian-reference"
    if debian.is_dir():
        paths.append(debian)
    folder = Path(tempfile.mkdtemp(prefix="compare-folder-"))
    build_folder(folder, 300)
    paths.append(folder)
    return paths


if __name__ == "__main__":
    if sys.argv[1] == "--dump":
        listed = Path(sys.argv[2]).read_text().splitlines()
        dump([Path(p) for p in listed if p], Path(sys.argv[3]))
        sys.exit(0)
    main_src, branch_src = Path(sys.argv[1]), Path(sys.argv[2])
    given = [Path(p) for p in sys.argv[3:]] or _default_paths()
    sys.exit(compare(main_src, branch_src, given))
