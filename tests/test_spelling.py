"""A misspelt word of a question is read as the word the reader's documents write,
where the slip seldom makes another word: two neighbouring letters swapped
("dupilcate"), a letter left out ("pasword", "duplicte"), or a letter Russian writers
put for another ("как обьединить ячейки", a soft sign for the
hard one, was refused naming "обьединить": a new-user pass over LibreOffice's help,
nu18). No other edit, and no real word: a word the documents lack is what the question
asks about ("stdevp" is no "stdev", "subnet" no "subset", "Канады" no "канал": a red
team's and XQuAD's unanswerable questions had been answered so)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from ragox.access import Principal
from ragox.search._spelling import (
    MAX_LOOKED_AT,
    MAX_TERMS,
    MAX_WORDS,
    _lexicon,
    corrections,
    variants,
)
from ragox.service import Ragox

STAFF = Principal("sam", groups=frozenset({"staff"}))
OPS = Principal("olga", groups=frozenset({"ops"}))


def _index(
    counts: dict[str, int],
) -> tuple[Callable[[Sequence[str]], set[str]], Callable[[Sequence[str]], dict[str, int]]]:
    """``held`` and ``frequencies`` over an index of these terms."""

    def held(terms: Sequence[str]) -> set[str]:
        return {t for t in terms if counts.get(t)}

    def frequencies(terms: Sequence[str]) -> dict[str, int]:
        return {t: counts.get(t, 0) for t in terms}

    return held, frequencies


def test_the_variants_of_a_word() -> None:
    assert "duplicate" in variants("dupilcate")
    assert "obejct" in variants("object")
    assert "объединить" in variants("обьединить")
    assert "ёлочка" in variants("елочка")
    # no letter more, less or changed
    assert "stdev" not in variants("stdevp")
    assert "subset" not in variants("subnet")
    assert "канал" not in variants("канады")


def test_two_swapped_letters_are_read_as_the_documents_word() -> None:
    index = _index({"duplic": 4, "row": 9, "calc": 30})
    assert corrections("how do I remove dupilcate rows in calc", *index) == {
        "dupilcate": "duplicate"
    }


def test_a_letter_left_out_is_read_as_the_documents_word() -> None:
    """ "pasword" (a letter written once for twice) and "duplicte" (a vowel left out)
    (nu19, nu18); not a vowel that makes an ending: "systemd" is no "systemed"."""
    index = _index({"password": 4, "duplic": 3, "file": 9, "system": 9})
    assert corrections("how can i save a file with a pasword", *index) == {"pasword": "password"}
    assert corrections("how to remove duplicte rows", *index) == {"duplicte": "duplicate"}
    assert corrections("what does systemd do?", *index) == {}


def test_a_russian_slip_is_read_as_the_documents_word() -> None:
    index = _index({"объеди": 3, "ячейк": 5})
    assert corrections("как обьединить ячейки", *index) == {"обьединить": "объединить"}


@pytest.mark.parametrize(
    "question",
    [
        # a word a passage holds (in one of its analyses) is no typo
        "how do i remove duplicate rows",
        # a letter more, less or changed is another word too often
        "what is stdevp?",
        "what is systemd?",
        "what is a subnet?",
        "what is networkd?",
        "Какая столица Канады?",
        # a real word is no typo, whatever its swapped letters make ("causal" / "casual")
        "what is a causal model?",
        # a short word is one swap from many others
        "what is a fomr?",
    ],
)
def test_words_that_are_not_read_otherwise(question: str) -> None:
    index = _index(
        {"duplic": 4, "remov": 3, "row": 9, "stdev": 5, "system": 9, "subset": 3}
        | {"casual": 4, "model": 3, "form": 8, "канал": 9, "столиц": 1}
    )
    assert corrections(question, *index) == {}


def test_the_variant_most_passages_hold_is_chosen() -> None:
    # "bqcdfe" is a swap from "qbcdfe" and from "bqcdef": the one more passages hold
    question = "what does bqcdfe mean?"
    assert corrections(question, *_index({"qbcdfe": 2, "bqcdef": 9})) == {"bqcdfe": "bqcdef"}
    assert corrections(question, *_index({"qbcdfe": 9, "bqcdef": 2})) == {"bqcdfe": "qbcdfe"}
    # only held variants count
    index = _index({"formal": 2, "formula": 9})
    assert corrections("which fromula applies?", *index) == {"fromula": "formula"}
    assert corrections("which fromal rule applies?", *index) == {"fromal": "formal"}


def test_a_question_has_few_words_read_otherwise() -> None:
    held, frequencies = _index({"duplic": 4, "printer": 3, "calcul": 5, "spreadsheet": 2})
    read = corrections("dupilcate pritner calcluate speradsheet", held, frequencies)
    assert len(read) == MAX_WORDS
    # …and a query of hundreds of made-up words looks up only its first few
    looked_up: list[int] = []

    def counted(terms: Sequence[str]) -> set[str]:
        looked_up.append(len(terms))
        return held(terms)

    variant_terms: list[int] = []

    def frequencies_counted(terms: Sequence[str]) -> dict[str, int]:
        variant_terms.append(len(terms))
        return frequencies(terms)

    words = " ".join(f"wordlemadeup{chr(0x61 + n % 26)}{chr(0x61 + n // 26)}" for n in range(300))
    assert corrections(words, counted, frequencies_counted) == {}
    assert looked_up and looked_up[0] <= 2 * MAX_LOOKED_AT
    # …and its words' variants share one budget of lookups
    assert variant_terms and sum(variant_terms) <= MAX_TERMS


def test_only_the_questions_languages_word_list_is_loaded_and_only_for_a_variant() -> None:
    """An English question loads English's list (0.2 s, 15 MB), not German's too (0.4 s,
    30 MB); a question that tells no language is checked in both; and none is loaded
    where no variant of an absent word is held (most questions)."""
    index = _index({"duplic": 4, "row": 9})
    _lexicon.cache_clear()
    assert corrections("how do I remove the rows of zyxwvut from my sheet?", *index) == {}
    assert _lexicon.cache_info().currsize == 0
    assert corrections("how do I remove the dupilcate rows from my sheet?", *index)
    assert _lexicon.cache_info().currsize == 1
    _lexicon.cache_clear()
    assert corrections("dupilcate", *index) == {"dupilcate": "duplicate"}
    assert _lexicon.cache_info().currsize == 2


DOCS = {
    "duplicates.txt": (
        "Removing duplicate rows\n\n"
        "To remove duplicate rows, select the range and choose Data - More Filters - "
        "Standard Filter, then check No duplications."
    ),
    "merge.txt": (
        "Объединение ячеек\n\nЧтобы объединить ячейки, выделите их и выберите Формат - "
        "Объединить ячейки."
    ),
    "print.txt": "Printing\n\nChoose File - Print to print the current worksheet.",
}


@pytest.fixture
def docs(app: Ragox, tmp_path: Path) -> Ragox:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(
            folder / name,
            folder,
            language="ru" if name == "merge.txt" else "en",
            groups=frozenset({"staff"}),
        )
    secret = "Kubernetes\n\nThe cluster runs Kubernetes with three nodes in Frankfurt."
    (folder / "cluster.txt").write_text(secret, encoding="utf-8")
    app.ingest_path(folder / "cluster.txt", folder, language="en", groups=frozenset({"ops"}))
    return app


@pytest.mark.both_backends
def test_a_misspelt_question_is_answered_and_the_trace_names_the_word(docs: Ragox) -> None:
    record = docs.ask("how do i remove dupilcate rows?", STAFF)
    assert not record.abstained, record.answer
    assert "No duplications" in record.answer
    assert record.question == "how do i remove dupilcate rows?"
    assert record.trace["respelled"] == {"dupilcate": "duplicate"}
    merged = docs.ask("как обьединить ячейки?", STAFF)
    assert not merged.abstained, merged.answer
    assert merged.trace["respelled"] == {"обьединить": "объединить"}
    # a search is run as typed: its hits would not say that a word was read otherwise
    assert docs.search("dupilcate", STAFF) == []


@pytest.mark.both_backends
def test_a_word_only_another_groups_passage_holds_is_never_offered(docs: Ragox) -> None:
    """ "Kubernetes" is in the ops group's document only: the staff's "kuberntees" is
    not read as it, so neither the trace nor the refusal names it; ops's is."""
    record = docs.ask("how many nodes does kuberentes run?", STAFF)
    assert record.abstained
    assert "respelled" not in record.trace
    assert "Kubernetes" not in record.answer
    found = docs.ask("how many nodes does kuberentes run?", OPS)
    assert found.trace["respelled"] == {"kuberentes": "kubernetes"}
    assert not found.abstained and "three nodes" in found.answer


@pytest.mark.both_backends
def test_a_deleted_documents_words_are_never_offered(docs: Ragox) -> None:
    assert docs.ask("how do i print the wroksheet?", STAFF).trace["respelled"] == {
        "wroksheet": "worksheet"
    }
    assert docs.delete("print.txt")
    record = docs.ask("how do i print the wroksheet?", STAFF)
    assert "respelled" not in record.trace


def test_a_word_with_sharp_s_is_a_word_of_the_list() -> None:
    """ "fließen" is in German's list as written; case-folded, "fliessen" is not, and the
    word had been taken for a typo (a red team's find)."""
    from ragox.search._spelling import _known

    assert _known("fließen", "Wohin fließen die Fugen?")
    assert _known("Größe", "Wie ändere ich die Größe des Bildes?")
