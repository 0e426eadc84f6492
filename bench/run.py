"""Run every benchmark and print its tables: ``python bench/run.py [NAME ...] [--OPTION]``
(``scale`` takes ``--rebuild`` and ``--million``; ``store`` those and ``--sizes=N,N``,
``--workers=N,N``, ``--replicas=N,N``, ``--quick``; ``commands`` takes ``--homes=DIR,DIR``,
``--runs=N``, ``--quick``, ``--only=A,B``, ``--no-peer``, ``--baseline=SRC`` and
``--vectors``; ``pdf`` ``--rounds=N``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_answers
import bench_api
import bench_commands
import bench_embed
import bench_folder
import bench_html
import bench_ingest
import bench_memory
import bench_ocr
import bench_pdf
import bench_realdocs
import bench_reprocess
import bench_resolve
import bench_scale
import bench_search
import bench_store
from _table import print_table

BENCHES = {
    "resolve": bench_resolve,
    "ingest": bench_ingest,
    "pdf": bench_pdf,
    "folder": bench_folder,
    "html": bench_html,
    "search": bench_search,
    "store": bench_store,
    "api": bench_api,
    "answers": bench_answers,
    "realdocs": bench_realdocs,
    "memory": bench_memory,
    "reprocess": bench_reprocess,
    "ocr": bench_ocr,
    "scale": bench_scale,
    "commands": bench_commands,
    "embed": bench_embed,
}

if __name__ == "__main__":
    # Options (``--rebuild``, ``--million``) go to the benchmarks that take them.
    options = [arg for arg in sys.argv[1:] if arg.startswith("--")]
    chosen = [arg for arg in sys.argv[1:] if not arg.startswith("--")] or list(BENCHES)
    for name in chosen:
        module = BENCHES[name]
        takes = module in (bench_scale, bench_store, bench_commands, bench_pdf)
        made = module.tables(options) if takes else module.tables()
        for title, header, rows in made:
            print_table(title, header, rows)
