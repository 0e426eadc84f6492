"""OCR of scanned PDF pages (issue 12.2, seed 003) on real scans.

The scans in ``tests/data/ocr`` are pages of public PDFs (and of seed 003's Russian
text) rendered to grayscale JPEG and rebuilt as image-only PDFs; one is crooked,
blurred and speckled; one is a scanned form with its own poor OCR layer. Every
scan is recognized once per module (Tesseract is slow) and the tests read the stored
representation.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import unicodedata
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from struct import iter_unpack

import pytest
from rapidfuzz.distance import Levenshtein

import ragox.extract._ocr as ocr_module
from conftest import DATA, older_database, run_ragox, serving
from ragox.access import ANY_ID, Principal
from ragox.anchor import Refusal, ResolutionStatus, resolve
from ragox.extract import ErrorCode, ExtractionError, ExtractOptions, OcrMode
from ragox.extract.pdf import PDF_PARSER, extract_pdf, ocr_forced, pdf_parsers
from ragox.ingest import stale_stages
from ragox.ingest._versions import StaleStage
from ragox.service import Ragox
from ragox.store import SCHEMA_VERSION
from ragox.text import BASE_PROFILE

pytestmark = [
    pytest.mark.skipif(
        ocr_module.tessdata_folder() is None, reason="needs tesseract-ocr-{eng,deu,rus}"
    ),
    pytest.mark.both_backends,
]

SCANS = DATA / "ocr"
#: name → (language, least character accuracy in reading order, least ignoring order)
EXPECTED = {
    "en-multicolumn-p1": ("en", 0.99, 0.99),  # two columns, read column by column
    "de-geotopo-p6": ("de", 0.85, 0.70),  # formulas: spacing around symbols differs
    "ru-seed003": ("ru", 0.97, 0.97),
    "en-multicolumn-p2-noisy": ("en", 0.60, 0.75),  # 1.5°, blur, speckles
}
STAFF = Principal("sam", groups=frozenset({"staff"}))


def normalized(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def accuracy(reference: str, recognized: str) -> float:
    """1 − normalized edit distance over the texts with white space collapsed."""
    return float(Levenshtein.normalized_similarity(normalized(reference), normalized(recognized)))


def accuracy_any_order(reference: str, recognized: str) -> float:
    """The same over the words sorted: recognition without reading order."""
    return accuracy(
        " ".join(sorted(normalized(reference).split())),
        " ".join(sorted(normalized(recognized).split())),
    )


@dataclass
class Scanned:
    app: Ragox
    home: Path


@pytest.fixture(scope="module")
def scanned(
    tmp_path_factory: pytest.TempPathFactory, module_store: str | None
) -> Iterator[Scanned]:
    home = tmp_path_factory.mktemp("ocr") / "home"
    app = Ragox(home)
    for name in EXPECTED:
        path = SCANS / f"{name}.pdf"
        item = app.ingest_path(path, SCANS, groups=frozenset({"staff"}))
        assert item.outcome is not None and item.outcome.state.value == "READY", name
    text_pdf = DATA / "pdf" / "multicolumn.pdf"
    app.ingest_path(text_pdf, text_pdf.parent, groups=frozenset({"staff"}))
    yield Scanned(app, home)
    app.close()


def _current(app: Ragox, document_id: str) -> str:
    record = app.store.revisions("default", document_id)[-1]
    assert record.manifest_id is not None
    return record.manifest_id


@pytest.mark.sqlite_only  # OCR recognition itself, not the store
@pytest.mark.parametrize("name", list(EXPECTED))
def test_scan_is_recognized_into_ocr_blocks(scanned: Scanned, name: str) -> None:
    """Every block of a scan is marked OCR, lies on page 1, and each character box
    lies inside its block's rectangle; the manifest names the OCR engine."""
    app = scanned.app
    manifest_id = _current(app, f"{name}.pdf")
    found = app.store.get_manifest(manifest_id)
    assert found is not None
    manifest = found.manifest
    assert "+ocr-tesseract" in manifest.parser and "eng+deu+rus" in manifest.parser
    assert manifest.parser != PDF_PARSER.id
    assert "OCR_PAGES" in app.store.notes(manifest_id).warnings
    blocks = app.store.blocks(manifest_id)
    assert blocks and all(b.ocr and b.page == 1 for b in blocks)
    boxes = app.store.char_boxes(manifest_id)
    assert boxes is not None
    text = app.store.text(manifest_id)
    assert len(boxes) == 16 * len(text)
    values = list(iter_unpack("<4f", boxes))
    for block in blocks:
        assert block.bbox is not None
        for x0, y0, x1, y1 in values[block.span.start : block.span.end]:
            if x1 > x0:
                assert block.bbox.x0 - 1 <= x0 and x1 <= block.bbox.x1 + 1
                assert block.bbox.y0 - 1 <= y0 and y1 <= block.bbox.y1 + 1


@pytest.mark.sqlite_only  # OCR recognition itself, not the store
@pytest.mark.parametrize("name", list(EXPECTED))
def test_character_accuracy_against_the_original_text_layer(scanned: Scanned, name: str) -> None:
    """The recognized text is close to the page's original text layer."""
    _, least, least_any_order = EXPECTED[name]
    reference = (SCANS / f"{name}.txt").read_text(encoding="utf-8")
    text = scanned.app.store.text(_current(scanned.app, f"{name}.pdf"))
    assert accuracy(reference, text) >= least
    assert accuracy_any_order(reference, text) >= least_any_order


@pytest.mark.sqlite_only  # OCR recognition itself, not the store
def test_languages_are_read_in_their_script(scanned: Scanned) -> None:
    """Whole German and Russian sentences are read in their own script."""
    german = scanned.app.store.text(_current(scanned.app, "de-geotopo-p6.pdf"))
    russian = scanned.app.store.text(_current(scanned.app, "ru-seed003.pdf"))
    assert "Ein topologischer Raum ist ein Paar" in german
    assert "Grundbegriffe" in german
    assert "Помощник отвечает на вопрос о штрафе" in russian


@pytest.mark.parametrize("name", list(EXPECTED))
def test_check_round_trip_on_scans(scanned: Scanned, name: str) -> None:
    """`ragox check`: every sampled passage is found again at its rectangles by the
    same OCR engine: 0 mismatches."""
    result = run_ragox(scanned.home, "check", f"{name}.pdf", "--json")
    assert result.code == 0, result.stdout
    report = json.loads(result.stdout)
    assert report["fragments"] > 0
    assert report["mismatches"] == []


def test_anchor_on_ocr_text_resolves_to_block_rectangles(scanned: Scanned) -> None:
    """A citation on OCR text resolves by its exact quote; its page target is the
    rectangle of the block, marked OCR, never per-character boxes."""
    app = scanned.app
    text = app.text("ru-seed003.pdf", STAFF)
    quote = "Помощник отвечает на вопрос о штрафе"
    start = text.index(quote)
    created = app.create_anchor("ru-seed003.pdf", start, start + len(quote), STAFF)
    assert not isinstance(created, Refusal)
    resolved = app.resolve(created.anchor, STAFF)
    assert resolved.status is ResolutionStatus.RESOLVED
    assert resolved.exact == quote
    assert resolved.target is not None
    assert all(b.ocr for b in resolved.target.blocks)
    (page,) = resolved.target.pages
    assert page.ocr and page.page == 1
    blocks = {b.block_id: b for b in app.store.blocks(_current(app, "ru-seed003.pdf"))}
    assert [r for r in page.rects] == [blocks[b.block_id].bbox for b in resolved.target.blocks]
    # a text PDF keeps its character-precise rectangles, not marked OCR
    pdf_text = app.text("multicolumn.pdf", STAFF)
    pdf_quote = "Nulla ullamcorper vestibulum turpis."
    pdf_start = pdf_text.index(pdf_quote)
    plain = app.create_anchor("multicolumn.pdf", pdf_start, pdf_start + len(pdf_quote), STAFF)
    assert not isinstance(plain, Refusal)
    target = app.resolve(plain.anchor, STAFF).target
    assert target is not None and target.pages and not any(p.ocr for p in target.pages)
    assert not any(b.ocr for b in target.blocks)


def test_another_ocr_engine_is_a_parser_mismatch(
    scanned: Scanned, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other OCR engine or language data → another parser id: the OCR revision is
    stale (PARSER) and an anchor made by it is refused PARSER_MISMATCH by a
    representation of the new engine; a text PDF is untouched."""
    app = scanned.app
    record = app.store.revisions("default", "ru-seed003.pdf")[-1]
    text_record = app.store.revisions("default", "multicolumn.pdf")[-1]
    assert stale_stages(app.store, record, app.profile.id) == ()
    before = {p.id for p in pdf_parsers(OcrMode.AUTO)}
    monkeypatch.setattr(ocr_module, "ENGINE", "tesseract-9.9.9")
    after = {p.id for p in pdf_parsers(OcrMode.AUTO)}
    assert before & after == {PDF_PARSER.id}
    assert StaleStage.PARSER in stale_stages(app.store, record, app.profile.id)
    assert stale_stages(app.store, text_record, app.profile.id) == ()
    # an anchor of the old recognition against a manifest of the new engine
    text = app.text("ru-seed003.pdf", STAFF)
    created = app.create_anchor("ru-seed003.pdf", 0, 10, STAFF)
    assert not isinstance(created, Refusal)
    old = created.anchor
    identity = old.identity
    new_parser = next(p for p in pdf_parsers(OcrMode.AUTO) if p.id not in before)
    assert new_parser.id != identity.parser and text

    class NewEngineLookup:
        """The store's view, with the manifest as the new engine would write it."""

        def __init__(self) -> None:
            self.inner = app.lookup(STAFF)

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

        def manifests(self, document_id: str, revision: str) -> object:
            import dataclasses

            stored = self.inner.manifests(document_id, revision)
            return [
                dataclasses.replace(
                    s, manifest=dataclasses.replace(s.manifest, parser=new_parser.id)
                )
                for s in stored
            ]

    result = resolve(old, NewEngineLookup())  # type: ignore[arg-type]
    assert result.status is ResolutionStatus.PARSER_MISMATCH


@pytest.mark.sqlite_only  # OCR recognition itself, not the store
def test_a_huge_scanned_page_is_read_within_the_pixel_budget() -> None:
    """A 200-inch page is rendered for the engine at a resolution whose image stays
    within the budget; A4 and A3 keep the full 300 dpi."""
    assert ocr_module.page_dpi(595, 842) == ocr_module.page_dpi(842, 1191) == 300
    dpi = ocr_module.page_dpi(14400, 14400)
    assert (14400 * dpi / 72) ** 2 <= ocr_module.OCR_PIXEL_BUDGET
    assert dpi >= 20


@pytest.mark.sqlite_only  # OCR recognition itself, not the store
def test_ocr_off_keeps_no_text_layer() -> None:
    """``off``: a scan fails NO_TEXT_LAYER as before, without running the engine."""
    data = (SCANS / "ru-seed003.pdf").read_bytes()
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(data, BASE_PROFILE, ExtractOptions(ocr=OcrMode.OFF))
    assert caught.value.code is ErrorCode.NO_TEXT_LAYER


@pytest.mark.sqlite_only  # OCR recognition itself, not the store
def test_a_poor_ocr_layer_is_kept_unless_forced() -> None:
    """A scan that carries its own (poor) OCR layer keeps it under ``auto`` (the text
    layer parser, no OCR blocks); ``force`` recognizes the page and finds Cyrillic."""
    data = (SCANS / "ru-form-p2-ocr-layer.pdf").read_bytes()
    kept = extract_pdf(data, BASE_PROFILE, ExtractOptions(ocr=OcrMode.AUTO))
    assert kept.parser == PDF_PARSER
    assert not any(b.ocr for b in kept.blocks)
    assert "Налог" not in kept.text  # the old layer reads Cyrillic as Latin look-alikes
    forced = extract_pdf(data, BASE_PROFILE, ExtractOptions(ocr=OcrMode.FORCE))
    assert forced.parser.config["ocr_pages"] == "all"
    # `reprocess` rebuilds a forced representation forced again, an automatic one not
    assert ocr_forced(forced.parser.id) and not ocr_forced(kept.parser.id)
    assert not any(ocr_forced(p.id) for p in pdf_parsers(OcrMode.AUTO)[:2])
    assert forced.blocks and all(b.ocr for b in forced.blocks)
    cyrillic = sum("\u0400" <= c <= "\u04ff" for c in forced.text)
    assert cyrillic > 200


@pytest.mark.sqlite_only  # OCR recognition itself, not the store
def test_an_invisible_ocr_layer_under_a_scan_is_kept_and_flagged() -> None:
    """A scan with an invisible text layer (render mode 3, as OCR tools write it) keeps
    that layer under ``auto``, without running the engine, and says so."""
    import pymupdf

    scan = pymupdf.open(SCANS / "ru-seed003.pdf")
    page = scan[0]
    page.insert_text((72, 90), "Invisible earlier OCR layer", fontsize=11, render_mode=3)
    data = scan.tobytes()
    scan.close()
    extraction = extract_pdf(data, BASE_PROFILE)
    assert extraction.parser == PDF_PARSER
    assert extraction.text == "Invisible earlier OCR layer"
    assert not any(b.ocr for b in extraction.blocks)
    assert "INVISIBLE_TEXT_LAYER" in extraction.warnings
    assert "OCR_PAGES" not in extraction.warnings


@pytest.mark.sqlite_only  # OCR recognition itself, not the store
def test_without_language_data_scans_fail_ocr_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    """No Tesseract data: a scan fails OCR_UNAVAILABLE; a text PDF extracts as before."""
    import ragox.extract.pdf as pdf_module

    monkeypatch.setattr(pdf_module, "ocr_engine", lambda language=None: None)
    with pytest.raises(ExtractionError) as caught:
        extract_pdf((SCANS / "ru-seed003.pdf").read_bytes(), BASE_PROFILE)
    assert caught.value.code is ErrorCode.OCR_UNAVAILABLE
    text_pdf = extract_pdf((DATA / "pdf" / "multicolumn.pdf").read_bytes(), BASE_PROFILE)
    assert text_pdf.parser == PDF_PARSER


def test_cli_ocr_option(tmp_path: Path) -> None:
    """`ragox ingest --ocr off` refuses a scan NO_TEXT_LAYER (exit 1); a mode ragox
    does not know is a usage error."""
    home = tmp_path / "home"
    result = run_ragox(home, "ingest", "--json", "--ocr", "off", str(SCANS / "ru-seed003.pdf"))
    assert result.code == 1
    (row,) = json.loads(result.stdout)["results"]
    assert row["state"] == "FAILED" and row["error"] == "NO_TEXT_LAYER"
    wrong = run_ragox(home, "ingest", "--ocr", "sometimes", str(SCANS / "ru-seed003.pdf"))
    assert wrong.code == 2


def _upload(
    url: str, key: str, name: str, data: bytes, fields: dict[str, str], query: str
) -> dict[str, object]:
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/pdf\r\n\r\n".encode()
        + data
        + b"\r\n"
    )
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(
        f"{url}/v1/documents{query}",
        data=body,
        headers={
            "Authorization": f"Bearer {key}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    try:
        with urllib.request.urlopen(request) as response:
            return {"code": response.status, **json.loads(response.read())}
    except urllib.error.HTTPError as error:
        return {"code": error.code}


def test_api_upload_ocr_field_and_query(tmp_path: Path) -> None:
    """The upload takes ``ocr`` as a form field or query parameter: ``off`` makes a scan
    FAILED NO_TEXT_LAYER; an unknown mode is 422."""
    import time

    home = tmp_path / "home"
    app = Ragox(home)
    key = app.create_key(Principal("olga", operator=True, write=frozenset({ANY_ID})))
    app.close()
    data = (SCANS / "ru-seed003.pdf").read_bytes()
    with serving(home) as url:
        bad = _upload(url, key, "scan.pdf", data, {}, "?ocr=sometimes")
        assert bad["code"] == 422
        by_field = _upload(url, key, "scan.pdf", data, {"document_id": "a.pdf", "ocr": "off"}, "")
        by_query = _upload(url, key, "scan.pdf", data, {"document_id": "b.pdf"}, "?ocr=off")
        assert by_field["code"] == by_query["code"] == 202
        for doc in ("a.pdf", "b.pdf"):
            for _ in range(200):
                request = urllib.request.Request(
                    f"{url}/v1/documents", headers={"Authorization": f"Bearer {key}"}
                )
                with urllib.request.urlopen(request) as response:
                    listed = json.loads(response.read())["documents"]
                states = [r for d in listed if d["document_id"] == doc for r in d["revisions"]]
                if states and states[-1]["state"] == "FAILED":
                    break
                time.sleep(0.1)
            assert states[-1]["state"] == "FAILED"
            assert states[-1]["error"] == "NO_TEXT_LAYER"


@pytest.mark.sqlite_only  # an older SQLite home
def test_older_home_gets_the_ocr_column(scanned: Scanned, tmp_path: Path) -> None:
    """A home written before migration 22 opens; its blocks read as not OCR."""
    old_db = tmp_path / "old.db"
    with older_database(scanned.home / "ragox.db", old_db, 17):
        pass
    with sqlite3.connect(old_db) as conn:
        columns = [str(row[1]) for row in conn.execute("PRAGMA table_info(blocks)")]
        assert "ocr" not in columns
    old_home = tmp_path / "old-home"
    old_home.mkdir()
    for name in ("blobs", "keys"):  # the source bytes and the manifest key
        shutil.copytree(scanned.home / name, old_home / name)
    old_db.rename(old_home / "ragox.db")
    app = Ragox(old_home)
    try:
        assert app.store.schema_version() == SCHEMA_VERSION
        blocks = app.store.blocks(_current(app, "ru-seed003.pdf"))
        assert blocks and not any(b.ocr for b in blocks)
    finally:
        app.close()


def test_ocr_reads_with_the_given_language(tmp_path: Path) -> None:
    """A document ingested with ``--language ru`` is read with the Russian model, then
    English (its parser id says so, and differs from the default eng+deu+rus one); it is up
    to date, its check round trips; a language without data falls back to all."""
    folder = ocr_module.tessdata_folder()
    assert folder is not None
    assert ocr_module.ocr_languages("ru", folder) == ("rus", "eng")
    assert ocr_module.ocr_languages("de-AT", folder) == ("deu", "eng")
    assert ocr_module.ocr_languages("en", folder) == ("eng",)
    assert ocr_module.ocr_languages("xx", folder) == ocr_module.LANGUAGES
    assert ocr_module.ocr_languages(None, folder) == ocr_module.LANGUAGES
    home = tmp_path / "home"
    app = Ragox(home)
    try:
        item = app.ingest_path(SCANS / "ru-seed003.pdf", SCANS, document_id="ru.pdf", language="ru")
        assert item.outcome is not None and item.outcome.state.value == "READY"
        record = app.store.revisions("default", "ru.pdf")[-1]
        found = app.store.get_manifest(_current(app, "ru.pdf"))
        assert found is not None
        assert "-rus+eng-" in found.manifest.parser
        assert "eng+deu+rus" not in found.manifest.parser
        assert {p.id for p in pdf_parsers(OcrMode.AUTO, "ru")} != {
            p.id for p in pdf_parsers(OcrMode.AUTO)
        }
        assert stale_stages(app.store, record, app.profile.id) == ()
        assert "Помощник отвечает на вопрос о штрафе" in app.store.text(_current(app, "ru.pdf"))
    finally:
        app.close()
    result = run_ragox(home, "check", "ru.pdf", "--json")
    assert result.code == 0, result.stdout
    assert json.loads(result.stdout)["mismatches"] == []


@pytest.mark.sqlite_only  # OCR recognition itself, not the store
def test_ocr_blocks_keep_tesseracts_order_and_share_word_boxes() -> None:
    """Tesseract's TSV becomes one block per paragraph in the engine's order (the left
    column's paragraph first although the right one starts higher), a line's words
    joined by one space, each word's box shared evenly by its characters; rows that
    are no words (or malformed) are skipped."""
    header = "\t".join(
        [
            "level",
            "page_num",
            "block_num",
            "par_num",
            "line_num",
            "word_num",
            "left",
            "top",
            "width",
            "height",
            "conf",
            "text",
        ]
    )
    rows = [
        "5\t1\t1\t1\t1\t1\t100\t500\t40\t20\t95\tLeft",
        "5\t1\t1\t1\t1\t2\t150\t500\t40\t20\t95\tcol",
        "5\t1\t1\t1\t2\t1\t100\t530\t40\t20\t95\tnext",
        "4\t1\t2\t1\t1\t0\t600\t100\t40\t20\t-1\t",
        "5\t1\t2\t1\t1\t1\t600\t100\t40\t20\t95\tRight",
        "5\t1\t2\t1\t1\t2\tx\t100\t40\t20\t95\tbroken",
        "5\t1\t2\t1\t1\t3\t700\t100\t40\t20\t95\t   ",
    ]
    blocks = ocr_module.ocr_blocks("\n".join([header, *rows]), 0.5, 0.5, (1, 0, 0, 1, 0, 0))
    texts = [
        "\n".join("".join(c["c"] for c in line["spans"][0]["chars"]) for line in b["lines"])
        for b in blocks
    ]
    assert texts == ["Left col\nnext", "Right"]
    first = blocks[0]["lines"][0]["spans"][0]["chars"]
    assert [c["bbox"] for c in first[:4]] == [
        (50.0, 250.0, 55.0, 260.0),
        (55.0, 250.0, 60.0, 260.0),
        (60.0, 250.0, 65.0, 260.0),
        (65.0, 250.0, 70.0, 260.0),
    ]
    assert first[4] == {"c": " ", "bbox": (70.0, 250.0, 75.0, 260.0)}
    assert blocks[0]["bbox"] == (50.0, 250.0, 95.0, 275.0)
