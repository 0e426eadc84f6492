"""`ragox eval answers|retrieval` on a gold-passage set over files: JSON, groups, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import DATA

pytestmark = pytest.mark.both_backends

PUMP = (
    "Pump care\n\n"
    "To drain the pump, open the red valve at the bottom and wait until no water runs out.\n\n"
    "The warranty of the pump lasts two years from the date of purchase.\n"
)
KETTLE = (
    "Wasserkocher\n\n"
    "Entkalken Sie den Wasserkocher einmal im Monat mit Essig.\n\n"
    "Der Wasserkocher schaltet sich nach dem Kochen von selbst ab.\n"
)


def _gold_set(tmp_path: Path, passage: str = "open the red valve at the bottom") -> Path:
    files = tmp_path / "files"
    files.mkdir(parents=True)
    (files / "pump.txt").write_text(PUMP, encoding="utf-8")
    (files / "kettle.txt").write_text(KETTLE, encoding="utf-8")
    data = {
        "format": "ragox-gold-set/1",
        "title": "pump and kettle",
        "documents": [
            {"document_id": "pump", "path": "pump.txt", "language": "en"},
            {"document_id": "kettle", "path": "kettle.txt", "language": "de"},
        ],
        "questions": [
            {
                "id": "en-1",
                "language": "en",
                "kind": "how-to",
                "question": "How do I drain the pump?",
                "document_id": "pump",
                "passage": passage,
            },
            {
                "id": "en-2",
                "language": "en",
                "kind": "fact",
                "question": "How long is the pump's warranty?",
                "document_id": "pump",
                "passage": "The warranty of the pump lasts two years",
            },
            {
                "id": "de-1",
                "language": "de",
                "kind": "fact",
                "question": "Wie oft sollte man den Wasserkocher entkalken?",
                "document_id": "kettle",
                "passage": "Entkalken Sie den Wasserkocher einmal im Monat mit Essig.",
            },
            {
                "id": "de-2",
                "language": "de",
                "kind": "unanswerable",
                "question": "Was ist die Hauptstadt von Australien?",
            },
        ],
    }
    path = files / "set.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_gold_answers_json_per_language_and_kind(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Counts, the per-group rows (language × kind, language, all) and resolved citations."""
    gold = _gold_set(tmp_path)
    result = ragox_cli("eval", "answers", str(gold), "--json")
    assert result.code == 0, result.stderr
    report = result.json()
    assert isinstance(report, dict)
    assert (report["answerable"], report["unanswerable"]) == (3, 1)
    assert report["citations_resolved"] == 1.0
    rows = {(g["language"], g["kind"]): g for g in report["groups"]}
    assert set(rows) == {
        ("de", "fact"),
        ("de", "unanswerable"),
        ("en", "how-to"),
        ("en", "fact"),
        ("de", "all"),
        ("en", "all"),
        ("all", "all"),
    }
    assert rows[("de", "unanswerable")]["answered_with_gold_citation"] is None
    assert rows[("de", "unanswerable")]["abstained_correctly"] in (0.0, 1.0)
    assert rows[("en", "all")]["answerable"] == 2


def test_gold_retrieval_finds_the_passage_in_its_document(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Each answerable question's top hit overlaps its gold passage in the right document."""
    gold = _gold_set(tmp_path)
    report = ragox_cli("eval", "retrieval", str(gold), "--json").json()
    assert isinstance(report, dict)
    assert report["queries"] == 3 and report["mode"] == "lexical"
    assert report["recall@1"] == 1.0
    text = ragox_cli("eval", "retrieval", str(gold)).stdout
    assert "recall@1" in text and "en" in text and "how-to" in text


def test_an_also_passage_counts_as_gold(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A hit on a question's `also` passage (here in another document) is relevant."""
    gold = _gold_set(tmp_path)
    data = json.loads(gold.read_text(encoding="utf-8"))
    kettle = data["questions"][2]
    kettle["document_id"], kettle["passage"] = "pump", "Pump care"
    gold.write_text(json.dumps(data), encoding="utf-8")
    without = ragox_cli("eval", "retrieval", str(gold), "--json").json()
    kettle["also"] = [{"document_id": "kettle", "passage": "einmal im Monat mit Essig"}]
    gold.write_text(json.dumps(data), encoding="utf-8")
    with_also = ragox_cli("eval", "retrieval", str(gold), "--json").json()
    assert isinstance(without, dict) and isinstance(with_also, dict)
    assert without["recall@10"] < 1.0
    assert with_also["recall@1"] == 1.0


def test_a_passage_that_is_not_in_its_document_is_refused(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A passage found 0 times (or twice) is a usage error naming the question, not the text."""
    gold = _gold_set(tmp_path, passage="close the blue valve")
    result = ragox_cli("eval", "answers", str(gold))
    assert result.code == 2 and "Traceback" not in result.stderr
    assert "en-1 (0x)" in result.stderr and "blue valve" not in result.stderr
    twice = _gold_set(tmp_path / "b", passage="the pump")
    result = ragox_cli("eval", "retrieval", str(twice))
    assert result.code == 2 and "en-1 (2x)" in result.stderr


def test_options_that_do_not_fit_the_input_are_refused(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """--questions with a gold set, --files with SQuAD data, a missing file: exit 2."""
    gold = _gold_set(tmp_path)
    squad = DATA / "xquad" / "xquad.en.json"
    assert ragox_cli("eval", "answers", str(gold), "--questions", str(squad)).code == 2
    assert ragox_cli("eval", "retrieval", str(squad), "--files", str(tmp_path)).code == 2
    (gold.parent / "kettle.txt").unlink()
    missing = ragox_cli("eval", "answers", str(gold))
    assert missing.code == 2 and "kettle: file not found" in missing.stderr


def test_citations_on_gold_count_only_answers_that_cite_the_gold() -> None:
    """Of the citations of answers that cite the gold passage, the share on it: an
    answer that misses the gold (or abstains) is no part of it."""
    from ragox.eval._goldset import GoldAnswersReport, GoldGroup, GoldQuestion, QuestionKind, _Asked

    def asked(qid: str, gold_cited: bool, citations: int, on_gold: int) -> _Asked:
        question = GoldQuestion(qid, "en", QuestionKind.FACT, "?", "doc", "passage")
        return _Asked(question, False, gold_cited, citations, on_gold)

    outcomes = (asked("a", True, 3, 1), asked("b", True, 1, 1), asked("c", False, 2, 0))
    report = GoldAnswersReport(outcomes, 6, 6, {"median": 1.0, "p95": 1.0})
    assert report.figures(GoldGroup(None, None))["citations_on_gold"] == 0.5
    assert report.figures(GoldGroup("de", None))["citations_on_gold"] is None
