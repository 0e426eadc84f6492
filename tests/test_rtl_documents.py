"""Right-to-left documents end to end: Arabic, Hebrew and mixed HTML, Markdown, plain
text and PDFs pass `ragox check` with no mismatch; each document's language is stored
(detected, or given with `ingest --language` or the upload's `language` field) and
served with its representation."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from conftest import DATA, OPERATOR, serving
from ragox.access import Principal
from ragox.service import Ragox
from ragox.store import RevisionState
from rtl_pdfs import FONT, embedded_pdf, laid_out_pdf, visual_order_pdf

pytestmark = pytest.mark.both_backends

RTL = DATA / "rtl"


def _documents(tmp_path: Path) -> list[Path]:
    (tmp_path / "laid-out.pdf").write_bytes(laid_out_pdf())
    (tmp_path / "visual.pdf").write_bytes(visual_order_pdf())
    (tmp_path / "embedded.pdf").write_bytes(embedded_pdf())
    files = [RTL / n for n in ("arabic.html", "hebrew.html", "mixed.md", "mixed.txt")]
    pdfs = [tmp_path / n for n in ("laid-out.pdf", "visual.pdf", "embedded.pdf")]
    return [*files, *pdfs]


@pytest.mark.skipif(not FONT.exists(), reason="needs fonts-dejavu-core")
def test_rtl_documents_pass_check(app: Ragox, tmp_path: Path) -> None:
    """Every right-to-left test document round-trips: `ragox check` finds 0 mismatches."""
    for path in _documents(tmp_path):
        item = app.ingest_path(path, path.parent)
        assert item.outcome is not None and item.outcome.state is RevisionState.READY, path
        report = app.check(item.outcome.document_id, OPERATOR)
        assert report.fragments > 0, path.name
        assert report.mismatches == (), path.name


def test_language_is_detected_by_script(app: Ragox) -> None:
    """Without --language, Hebrew text is stored as he and Arabic as ar."""
    for name, expected in (("hebrew.html", "he"), ("arabic.html", "ar")):
        item = app.ingest_path(RTL / name, RTL)
        assert item.outcome is not None and item.outcome.state is RevisionState.READY
        manifest = app.status(name, OPERATOR).revisions[0].revision.manifest_id
        assert manifest is not None
        assert app.store.index.representation_languages([manifest]) == {manifest: expected}


def test_cli_language_is_stored_and_checked(ragox_cli, home: Path) -> None:  # type: ignore[no-untyped-def]
    """`ingest --language AR` stores ar for the document; a code that is not one is a
    usage error (exit 2) and stores nothing."""
    bad = ragox_cli("ingest", str(RTL / "mixed.txt"), "--language", "arabic!")
    assert bad.code == 2
    good = ragox_cli("ingest", str(RTL / "mixed.txt"), "--language", "AR", "--json")
    assert good.code == 0, good.stderr
    app = Ragox(home)
    try:
        document = app.store.get_document("default", "mixed.txt")
        assert document is not None and document.language == "ar"
    finally:
        app.close()


def test_api_upload_language_is_stored_and_served(home: Path) -> None:
    """The upload's `language` field is stored and the text route serves it (with the
    extractor's warnings); a malformed one is 422."""
    app = Ragox(home)
    key = app.create_key(
        Principal("olga", groups=frozenset({"staff"}), write=frozenset({"staff/"}))
    )
    app.close()
    auth = {"Authorization": f"Bearer {key}"}
    with serving(home) as url:
        bad = httpx.post(
            f"{url}/v1/documents",
            headers=auth,
            data={"language": "he-IL-x"},
            files={"file": ("m.txt", (RTL / "mixed.txt").read_bytes())},
        )
        assert bad.status_code == 422
        response = httpx.post(
            f"{url}/v1/documents",
            headers=auth,
            data={"language": "he"},
            files={"file": ("m.txt", (RTL / "mixed.txt").read_bytes())},
        )
        assert response.status_code == 202
        deadline = time.time() + 30
        while True:
            info = httpx.get(f"{url}/v1/documents/staff/m.txt", headers=auth).json()
            if info["revisions"][0]["state"] == "READY" or time.time() > deadline:
                break
            time.sleep(0.2)
        assert info["revisions"][0]["language"] == "he"
        text = httpx.get(f"{url}/v1/documents/staff/m.txt/revisions/r1/text", headers=auth)
        assert text.json()["language"] == "he"
        assert text.json()["warnings"] == []
