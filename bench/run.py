"""Run every benchmark and print its tables: ``python bench/run.py [NAME ...]``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_answers
import bench_api
import bench_folder
import bench_ingest
import bench_memory
import bench_realdocs
import bench_reprocess
import bench_resolve
import bench_search
from _table import print_table

BENCHES = {
    "resolve": bench_resolve,
    "ingest": bench_ingest,
    "folder": bench_folder,
    "search": bench_search,
    "api": bench_api,
    "answers": bench_answers,
    "realdocs": bench_realdocs,
    "memory": bench_memory,
    "reprocess": bench_reprocess,
}

if __name__ == "__main__":
    chosen = sys.argv[1:] or list(BENCHES)
    for name in chosen:
        for title, header, rows in BENCHES[name].tables():
            print_table(title, header, rows)
