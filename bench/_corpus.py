"""Real text for benchmarks: XQuAD paragraphs (CC BY-SA 4.0) from tests/data or shared/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = [ROOT / "tests" / "data" / "xquad", ROOT.parent / "shared" / "data" / "xquad"]


def xquad_file(lang: str) -> Path:
    for folder in CANDIDATES:
        path = folder / f"xquad.{lang}.json"
        if path.exists():
            return path
    raise FileNotFoundError(f"xquad.{lang}.json not found in {CANDIDATES}")


def paragraphs(langs: tuple[str, ...] = ("en", "de", "ru")) -> Iterator[str]:
    for lang in langs:
        data = json.loads(xquad_file(lang).read_text(encoding="utf-8"))
        for article in data["data"]:
            for paragraph in article["paragraphs"]:
                yield paragraph["context"]


def numbered_text(target_chars: int) -> tuple[str, list[int]]:
    """Paragraphs repeated with unique section numbers until ``target_chars``; returns the
    text and the start offset of each paragraph body (after its number)."""
    pieces: list[str] = []
    starts: list[int] = []
    length = 0
    source = list(paragraphs())
    n = 0
    while length < target_chars:
        body = source[n % len(source)]
        head = f"§ {n + 1}. "
        starts.append(length + len(head))
        piece = head + body + "\n\n"
        pieces.append(piece)
        length += len(piece)
        n += 1
    return "".join(pieces), starts
