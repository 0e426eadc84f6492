"""One measured ingestion run in a fresh process; prints JSON with time and peak RSS.

Usage: python _ingest_child.py KIND PATH...   (KIND: floor | ragox | peer | peer-text)
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path


def floor(paths: list[Path]) -> int:
    import pymupdf

    pages = 0
    for path in paths:
        with pymupdf.open(path) as document:
            for page in document:
                page.get_text("rawdict")
                pages += 1
    return pages


def ragox(paths: list[Path]) -> int:
    from ragox.service import Ragox

    with tempfile.TemporaryDirectory() as home:
        app = Ragox(Path(home))
        units = 0
        # as `ragox ingest` does: text files extracted one step ahead by a worker
        with app.extracting_ahead(paths):
            for path in paths:
                item = app.ingest_path(path, path.parent)
                assert item.outcome is not None and item.outcome.state.value == "READY", item
                record = app.store.get_revision(
                    "default", item.outcome.document_id, item.outcome.revision
                )
                assert record is not None and record.manifest_id is not None
                notes = app.store.notes(record.manifest_id)
                units += notes.page_count or 1
        app.close()
    return units


def peer(paths: list[Path]) -> int:
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.readers.file import PyMuPDFReader

    reader = PyMuPDFReader()
    splitter = SentenceSplitter(chunk_size=512, chunk_overlap=64, tokenizer=str.split)
    pages = 0
    for path in paths:
        documents = reader.load_data(file_path=path)
        pages += len(documents)
        splitter.get_nodes_from_documents(documents)
    return pages


def peer_text(paths: list[Path]) -> int:
    """LlamaIndex's folder reading of plain files and its sentence splitter; units:
    files."""
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.node_parser import SentenceSplitter

    documents = SimpleDirectoryReader(input_files=[str(p) for p in paths]).load_data()
    splitter = SentenceSplitter(chunk_size=512, chunk_overlap=64, tokenizer=str.split)
    splitter.get_nodes_from_documents(documents)
    return len(paths)


if __name__ == "__main__":
    kind, files = sys.argv[1], [Path(p) for p in sys.argv[2:]]
    started = time.perf_counter()
    kinds = {"floor": floor, "ragox": ragox, "peer": peer, "peer-text": peer_text}
    units = kinds[kind](files)
    seconds = time.perf_counter() - started
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the forking parent
    # across exec, so a child would report the benchmark driver's peak.
    hwm = next(
        line
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("VmHWM:")
    )
    peak_mb = int(hwm.split()[1]) / 1024
    cpu = time.process_time()
    print(json.dumps({"units": units, "seconds": seconds, "cpu": cpu, "peak_rss_mb": peak_mb}))
