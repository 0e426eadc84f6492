"""A definition question is answered by the sentence that says what its subject is for,
as by one that says what it is (nu20, GIMP's manual): "what is a layer mask for" quoted
the Mask submenu's list of commands, each naming a layer mask, over "A layer mask lets
you define which parts of the layer are opaque, semi-transparent or transparent." """

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import answers_over
from ragox.answer import AnswerRecord
from ragox.answer._support import AnswerKind, holds_answer_kind


def _asked(tmp_path: Path, pages: dict[str, str], language: str, question: str) -> AnswerRecord:
    """The answer to ``question`` over ``pages`` (name → text), each a document."""
    files = {f"{name}.txt": text for name, text in pages.items()}
    return answers_over(tmp_path, files, [question], language)[0]


@pytest.mark.parametrize(
    "sentence",
    [
        "A layer mask lets you define which parts of the layer are opaque.",
        "The Quick Mask allows you to paint a selection.",
        "Layer masks are used for hiding parts of a layer.",
        "A layer mask is used to hide parts of a layer.",
        "The history serves as a record of your actions.",
        "Die Schnellmaske ermöglicht es Ihnen, Auswahlen zu malen.",
        "Der Pfad dient zum Freistellen von Objekten.",
        "Инструмент «Кривые» позволяет менять яркость.",
        "Альфа-канал нужен для прозрачности.",
    ],
)
def test_a_sentence_that_says_what_its_subject_is_for_defines_it(sentence: str) -> None:
    assert holds_answer_kind(AnswerKind.DEFINITION, sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        # a pronoun is no subject the question names
        "It lets you define which parts are opaque.",
        "This allows you to paint a selection.",
        "Это позволяет менять яркость.",
        "Es ermöglicht Ihnen, Auswahlen zu malen.",
        # the verb far from the sentence's start: a subject of more than four words
        "When you click the button in the dialog it lets you choose.",
        # a command that does something is not what its subject is for
        "The Apply Layer Mask command merges the layer mask with the current layer.",
        # a person used to a thing or permitted it, a pronoun or question word anywhere
        # in the subject, a question (a red team's finds)
        "Photoshop users are used to adjustment layers.",
        "Then it lets you choose a color.",
        "Which lets you pick a layer.",
        "Wir erlauben keine Haustiere.",
        "Der Hersteller erlaubt keine Garantie.",
        "Всё это позволяет менять яркость.",
        "Нам нужно для этого время.",
        "What allows you to paint a selection?",
        "Что нужно для установки?",
        "The layer mask allows you to paint?",
        # the subject and its verb open the sentence: not after 300 characters of
        # anything (a red team's 30,000 quotation marks took seconds to match)
        '"' * 30_000 + " layer mask lets you define it",
    ],
)
def test_a_sentence_that_does_not_say_what_its_subject_is_for(sentence: str) -> None:
    assert not holds_answer_kind(AnswerKind.DEFINITION, sentence)


PAGES = {
    "mask-menu": "7.22. The Mask Submenu\n\n"
    "The Mask submenu of the Layer menu contains commands which work with layer masks.\n\n"
    "The Mask submenu contains the following commands:\n\n"
    "Section 7.23, Add Layer Mask\n\nSection 7.24, Apply Layer Mask\n\n"
    "Section 7.25, Delete Layer Mask\n\nSection 7.26, Show Layer Mask\n\n"
    "Section 7.27, Edit Layer Mask\n\nSection 7.28, Disable Layer Mask\n",
    "mask-apply": "7.24. Apply Layer Mask\n\n"
    "The Apply Layer Mask command merges the layer mask with the current layer. "
    "If the active layer does not have a layer mask, the menu entry is grayed out.\n",
    "mask-delete": "7.25. Delete Layer Mask\n\n"
    "The Delete Layer Mask command deletes the layer mask of the active layer. "
    "If the active layer does not have a layer mask, the menu entry is grayed out.\n",
    "mask-add": "7.23. Add Layer Mask\n\n"
    "The Add Layer Mask command adds a layer mask to the active layer. "
    "If the layer already has a layer mask, the menu entry is grayed out. "
    "A layer mask lets you define which parts of the layer are opaque, "
    "semi-transparent or transparent.\n",
    "canvas": "The canvas size sets the visible area of the image. "
    "Layers may be larger than the canvas.\n",
}


def test_what_a_thing_is_for_is_quoted(tmp_path: Path) -> None:
    record = _asked(tmp_path, PAGES, "en", "what is a layer mask for")
    assert not record.abstained, record.answer
    first = record.citations[0].anchor.quote.exact
    assert first.startswith("A layer mask lets you define"), first


@pytest.mark.parametrize(
    "sentence",
    [
        # a conjunction opens no subject: "это" after "Если" is "this", no definition
        "Если это не так, то добавьте новый альфа-канал из меню слоёв.",
        "If it is a new layer, click OK.",
        "Wenn das ein Fehler ist, melden Sie ihn.",
    ],
)
def test_a_conditional_is_no_definition(sentence: str) -> None:
    assert not holds_answer_kind(AnswerKind.DEFINITION, sentence)


ALPHA = {
    "alpha-add": "7.34. Добавить альфа-канал\n\n"
    "Добавить альфа-канал: канал альфа автоматически добавляется к диалогу каналов, как "
    "только создаётся второй слой в изображении. Он представляет собой прозрачность "
    "изображения. Если у изображения только один слой, то у него нет канала альфа.\n",
    "web": "2. Прозрачность для веба\n\n"
    "Чтобы экспортировать изображения с прозрачностью альфа, необходимо иметь канал "
    "альфа. Чтобы проверить, есть ли у изображения альфа-канал, перейдите в диалог "
    "каналов. Если это не так, то добавьте новый альфа-канал из меню слоёв.\n",
    "remove": "7.35. Удалить альфа-канал\n\n"
    "Эта команда удаляет альфа-канал активного слоя, сохраняя альфа-каналы других слоёв.\n",
    "paths": "Контуры хранятся в диалоге контуров. Их можно экспортировать в SVG.\n",
}


def test_a_pronoun_stands_for_the_term_the_sentence_before_names(tmp_path: Path) -> None:
    """ "что такое альфа канал" is answered by "Он представляет собой прозрачность
    изображения.", whose pronoun stands for the channel the sentence before it names
    (nu20: three sentences that merely name the channel were quoted, one of them
    "Если это не так, …", taken for a definition)."""
    record = _asked(tmp_path, ALPHA, "ru", "что такое альфа канал")
    assert not record.abstained, record.answer
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert "Он представляет собой прозрачность изображения." in quotes, quotes
    assert not any(q.startswith("Если это не так") for q in quotes), quotes


@pytest.mark.parametrize(
    "sentence",
    [
        # a word that only looks like a conjunction opens a definition (a red team's)
        "SO-DIMM is a smaller form of memory module.",
        "AND-gates are the simplest logic gates.",
        "So-called hard links are the names of one file.",
        "Так называемый swap — это раздел подкачки.",
    ],
)
def test_a_word_like_a_conjunction_may_open_a_definition(sentence: str) -> None:
    assert holds_answer_kind(AnswerKind.DEFINITION, sentence)


PODMAN = {
    "engines": "Container engines\n\n"
    "Before you install Podman, remove the old Docker engine. It is a background daemon "
    "that runs as root and listens on a socket. Podman needs no such daemon.\n",
    "podman": "Podman tools\n\nPodman runs containers without a daemon. Podman is a "
    "container engine developed by Red Hat that runs containers as ordinary users.\n",
    "tips": "Backups\n\nPodman stores images under your home folder. It is a good idea to "
    "back up that folder before an upgrade.\n",
}


def test_a_pronoun_stands_only_for_what_the_sentence_before_is_about(tmp_path: Path) -> None:
    """ "It is a background daemon …" after "Before you install Podman, remove the old
    Docker engine." is about Docker, and "It is a good idea to …" about nothing: neither
    defines Podman (a red team's cases); "Podman is a container engine …" does."""
    record = _asked(tmp_path, PODMAN, "en", "What is Podman?")
    assert not record.abstained, record.answer
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert quotes[0].startswith("Podman is a container engine"), quotes
    assert not any(q.startswith("It is a") for q in quotes), quotes
