"""The vector list of a question whose language no permitted passage is in ranks each
passage less its language's mean similarity to the question (issue 16: Russian
questions over English and German documents)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from ragox.access import Principal
from ragox.search import EmbedderIdentity, detect_language, reindex, scope_of
from ragox.service import Ragox

STAFF = Principal("sam", groups=frozenset({"staff"}))
#: passages (English answer, English and German others) and their vectors: axis 0 is
#: the question's content, axis 1 German, axis 2 English, the rest each text's own
PASSAGES = {
    "answer": (
        "To change the time zone of the system, run the configuration tool and choose "
        "your region from the list that it shows.",
        {0: 0.8, 2: 0.6},
    ),
    "printer": (
        "The printer queue is managed by the print service, which keeps every job until "
        "the device reports that it has finished.",
        {2: 0.8, 3: 0.6},
    ),
    "mail": (
        "Outgoing mail is delivered by the local mail transfer agent, which retries "
        "every message that could not be sent at once.",
        {2: 0.8, 4: 0.6},
    ),
    "drucker": (
        "Die Druckerwarteschlange wird vom Druckdienst verwaltet, der jeden Auftrag "
        "behält, bis das Gerät meldet, dass er fertig ist.",
        {1: 0.9, 5: 0.44},
    ),
    "post": (
        "Ausgehende Post wird vom lokalen Mailserver zugestellt, der jede Nachricht "
        "erneut versucht, die nicht sofort gesendet werden konnte.",
        {1: 0.9, 6: 0.44},
    ),
    "platte": (
        "Die Festplatte wird beim Start des Systems geprüft, wenn sie seit der letzten "
        "Prüfung oft genug eingebunden worden ist.",
        {1: 0.9, 7: 0.44},
    ),
}
#: the same question in Russian (no Russian passage) and German (German passages)
QUESTIONS = {
    "ru": "Как изменить часовой пояс системы и выбрать свой регион?",
    "de": "Wie ändert man die Zeitzone des Systems und wählt seine Region?",
}
QUERY = {0: 0.5, 1: 0.8, 2: 0.1}


class PlannedEmbedder:
    """The vectors above, under the model whose weights the searcher uses."""

    identity = EmbedderIdentity(
        name="test-planned",
        model="multilingual-e5-small-q4",
        revision="1",
        dimension=8,
        query_prefix="",
        passage_prefix="",
    )

    def __init__(
        self, passages: dict[str, tuple[str, dict[int, float]]], query: dict[int, float]
    ) -> None:
        self.passages = passages
        self.query = query

    def embed(self, texts: Sequence[str], kind: str) -> npt.NDArray[np.float32]:
        rows = []
        for text in texts:
            plan = self.query
            if kind != "query":
                plan = next(p for t, p in self.passages.values() if t in text or text in t)
            vector = np.zeros(8)
            for axis, value in plan.items():
                vector[axis] = value
            rows.append(vector / np.linalg.norm(vector))
        return np.asarray(rows, dtype=np.float32)


def test_question_in_a_language_no_passage_is_in_is_ranked_by_centred_similarity(
    app: Ragox,
) -> None:
    """A Russian question nearer to German as a whole than to English finds the English
    answer first; the same vectors for a German question keep the plain order (the
    home holds German passages), so translated manuals keep their own language's."""
    assert {detect_language(t) for t, _ in PASSAGES.values()} == {"en", "de"}
    first = _first_by_meaning(app, PlannedEmbedder(PASSAGES, QUERY))
    assert first(QUESTIONS["ru"]) == "answer"
    assert first(QUESTIONS["de"]) != "answer"


def _first_by_meaning(app: Ragox, embedder: PlannedEmbedder) -> Callable[[str], str]:
    """Ingest the embedder's passages, index its vectors; a question's first document
    in the vector list."""
    for name, (text, _) in embedder.passages.items():
        outcome = app.ingestor.ingest_bytes(
            text.encode(), f"{name}.txt", name, groups=frozenset({"staff"}), tenant="default"
        )
        assert outcome.state.value == "READY"
    reindex(app.store, embedder, "test-planned")
    searcher = app.searcher(embedder)
    scope = scope_of(STAFF)

    def first(question: str) -> str:
        chunk_id = searcher.vector(question, scope, 3)[0][0]
        chunk = app.store.get_chunk(chunk_id)
        assert chunk is not None
        record = app.store.get_manifest(chunk.manifest_id)
        assert record is not None
        return record.manifest.document_id

    return first


#: English passages that share one direction (axis 7): the generic one lies on it
GENERIC = {
    "generic": (
        "This chapter describes how the system is configured and maintained, and where "
        "the files that belong to each part of it are kept.",
        {7: 1.0},
    ),
    "answer": (
        "To change the time zone of the system, run the configuration tool and choose "
        "your region from the list that it shows.",
        {7: 0.6, 0: 0.8},
    ),
} | {
    f"other{n}": (
        f"Section {n} of the manual explains one more service of the system, how it is "
        "started at boot and which options its configuration file accepts.",
        {7: 0.8, n: 0.6},
    )
    for n in range(1, 6)
}


def test_a_passage_near_to_everything_ranks_lower(app: Ragox) -> None:
    """A generic paragraph a little nearer to the question than the answer, but near to
    every passage, ranks below the answer (its typicality is subtracted)."""
    first = _first_by_meaning(app, PlannedEmbedder(GENERIC, {7: 0.9, 0: 0.43}))
    assert first("How do I change the time zone of the system?") == "answer"
