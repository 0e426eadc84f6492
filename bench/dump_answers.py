"""Every answer of a question set as JSON, for comparing two versions of the code
(issue 15: a speed change must leave every answer byte-identical).

``python bench/dump_answers.py OUT.json [--sets=xquad,dev] [--home=DIR ...]`` asks, with
the extractive generator in lexical mode:

- ``xquad``: every XQuAD question in en, de and ru over its language's articles (every
  fifth article held out, so its questions should abstain), as ``bench_answers`` does;
- ``dev``: every question of the real-document development set (the Debian FAQ and
  the Developer's Reference);
- ``--home=DIR``: the 100 questions of ``bench_scale`` as its group reader, over a built
  scale home (a copy: each ask stores its answer).

Run it once with ``PYTHONPATH`` on each version's ``src`` and compare the files
(``cmp`` or ``diff``). Per answer it keeps the whole record (text, claims, citations
with anchors, abstention, evidence, trace) except its random id and creation time;
manifest and chunk ids (which hash their ingestion time) are named in order of first
appearance.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _corpus import xquad_file
from ragox.eval import held_out, load_squad
from ragox.eval._retrieval import EVAL_PRINCIPAL, prepare_corpus
from ragox.search import SearchMode
from ragox.service import Ragox

#: ids made from a creation time at ingestion: named by first appearance instead
_RUN_IDS = ("manifest_id", "chunk_id", "chunk_ids")


def _record(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in ("answer_id", "created_at")}


def _stable(value: Any, names: dict[str, str], key: str = "") -> Any:
    """``value`` with every manifest and chunk id (random per ingestion: its manifest
    holds the time) replaced by ``M1``, ``M2``, … in order of first appearance."""
    if isinstance(value, dict):
        return {k: _stable(v, names, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_stable(v, names, key) for v in value]
    if key in _RUN_IDS and isinstance(value, str):
        return names.setdefault(value, f"M{len(names) + 1}")
    return value


def xquad(language: str) -> list[dict[str, Any]]:
    articles, questions = load_squad(xquad_file(language))
    out = []
    with tempfile.TemporaryDirectory() as home:
        app = Ragox(Path(home))
        prepare_corpus(app, [a for a in articles if not held_out(a)])
        for question in questions:
            record = app.ask(question.text, EVAL_PRINCIPAL, mode=SearchMode.LEXICAL)
            out.append({"id": question.question_id, **_record(record.to_json())})
        app.close()
    return out


def dev() -> list[dict[str, Any]]:
    import bench_realdocs
    from ragox.eval import ingest_gold_documents, load_gold_set

    gold = load_gold_set(bench_realdocs.DEV_SET)
    out = []
    with tempfile.TemporaryDirectory() as home:
        app = Ragox(Path(home))
        ingest_gold_documents(app, gold, bench_realdocs.DEV_CACHE)
        for question in gold.questions:
            record = app.ask(question.text, EVAL_PRINCIPAL, mode=SearchMode.LEXICAL)
            out.append({"id": question.question_id, **_record(record.to_json())})
        app.close()
    return out


def scale(home: Path) -> list[dict[str, Any]]:
    import bench_scale

    app = Ragox(home)
    # a home with the bench's vectors names an embedder no spec makes (as bench_scale)
    app._embedder_spec, app._embedder = "bench-hash", bench_scale.HashEmbedder()
    out = []
    for question in bench_scale.questions(random.Random(15)):
        record = app.ask(question, bench_scale.READER, mode=SearchMode.LEXICAL)
        out.append({"id": question, **_record(record.to_json())})
    app.close()
    return out


def main(argv: list[str]) -> None:
    target = Path(argv[0])
    sets = ["xquad", "dev"]
    homes = []
    for arg in argv[1:]:
        if arg.startswith("--sets="):
            sets = [s for s in arg.split("=", 1)[1].split(",") if s]
        elif arg.startswith("--home="):
            homes.append(Path(arg.split("=", 1)[1]))
    dumped: dict[str, list[dict[str, Any]]] = {}
    if "xquad" in sets:
        for language in ("en", "de", "ru"):
            dumped[f"xquad-{language}"] = xquad(language)
    if "dev" in sets:
        dumped["dev"] = dev()
    for home in homes:
        dumped[f"scale-{home.name}"] = scale(home)
    # named in the order of the sorted output, so that a file renamed again is unchanged
    ordered = json.loads(json.dumps(dumped, sort_keys=True))
    stable = {name: _stable(records, {}) for name, records in ordered.items()}
    target.write_text(json.dumps(stable, ensure_ascii=False, indent=1, sort_keys=True))
    print({name: len(records) for name, records in dumped.items()})


if __name__ == "__main__":
    main(sys.argv[1:])
