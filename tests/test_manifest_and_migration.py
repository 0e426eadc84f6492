"""Manifests (content address, HMAC) and explicit anchor migration."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR, SEED_BYTES, store_sql
from ragox.access import Principal
from ragox.anchor import Anchor, Migration, Refusal, ResolutionStatus
from ragox.service import Ragox
from ragox.text import Profile, step_by_name

pytestmark = pytest.mark.both_backends


def _seed(app: Ragox, tmp_path: Path) -> Anchor:
    path = tmp_path / "seed.txt"
    path.write_bytes(SEED_BYTES)
    app.ingest_path(path, tmp_path, document_id="manual-17", revision="v2")
    created = app.create_anchor("manual-17", 9, 16, OPERATOR)
    assert not isinstance(created, Refusal)
    return created.anchor


def test_manifest_is_content_addressed_and_signed(app: Ragox, tmp_path: Path) -> None:
    """manifest_id is the SHA-256 of the canonical JSON; the HMAC verifies."""
    anchor = _seed(app, tmp_path)
    (record,) = app.store.manifests("default", "manual-17", "v2")
    assert record.manifest_id == record.manifest.manifest_id
    assert app.signer.verify(record.manifest, record.mac)
    assert record.manifest.text_sha256 == anchor.identity.text_sha256
    assert record.manifest.segmentation.startswith("graphemes-unicode-")
    assert (app.home / "keys" / "manifest.key").stat().st_mode & 0o777 == 0o600


def test_tampered_manifest_is_detected(app: Ragox, tmp_path: Path) -> None:
    """A manifest row edited outside ragox fails its HMAC: MANIFEST_INVALID, also in a
    process that verified (and remembered) the untouched row just before."""
    anchor = _seed(app, tmp_path)
    assert app.resolve(anchor, OPERATOR).status is ResolutionStatus.RESOLVED
    store_sql(app.home, "UPDATE manifests SET json = replace(json, 'text/plain', 'text/html')")
    assert app.resolve(anchor, OPERATOR).status is ResolutionStatus.MANIFEST_INVALID
    store_sql(app.home, "UPDATE manifests SET json = replace(json, 'text/html', 'text/plain')")
    assert app.resolve(anchor, OPERATOR).status is ResolutionStatus.RESOLVED
    store_sql(app.home, "UPDATE manifests SET mac = replace(mac, substr(mac, 1, 1), 'x')")
    assert app.resolve(anchor, OPERATOR).status is ResolutionStatus.MANIFEST_INVALID


def test_key_from_another_home_does_not_verify(tmp_path: Path) -> None:
    """Two homes have different keys: a copied manifest row does not verify elsewhere."""
    first, second = Ragox(tmp_path / "a"), Ragox(tmp_path / "b")
    anchor = _seed(first, tmp_path)
    (record,) = first.store.manifests("default", "manual-17", anchor.revision)
    assert not second.signer.verify(record.manifest, record.mac)


def test_reingest_same_bytes_is_idempotent(app: Ragox, tmp_path: Path) -> None:
    """The same bytes three times: one revision, one manifest."""
    path = tmp_path / "seed.txt"
    path.write_bytes(SEED_BYTES)
    outcomes = [app.ingest_path(path, tmp_path, document_id="d").outcome for _ in range(3)]
    assert [o.revision for o in outcomes if o] == ["r1", "r1", "r1"]
    assert [o.created for o in outcomes if o] == [True, False, False]
    assert len(app.store.revisions("default", "d")) == 1
    assert len(app.store.manifests("default", "d", "r1")) == 1


def test_revision_labels_are_immutable(app: Ragox, tmp_path: Path) -> None:
    """Other bytes under an existing revision label are refused; the stored one stays."""
    path = tmp_path / "seed.txt"
    path.write_bytes(SEED_BYTES)
    app.ingest_path(path, tmp_path, document_id="d", revision="v1")
    before = app.text("d", OPERATOR)
    path.write_bytes(b"something else\n")
    item = app.ingest_path(path, tmp_path, document_id="d", revision="v1")
    assert item.outcome is None and item.skipped is not None
    assert item.skipped.value == "REVISION_CONFLICT"
    assert app.text("d", OPERATOR) == before


def test_profile_change_then_authorized_migration(app: Ragox, tmp_path: Path) -> None:
    """After re-extraction with an NFKC profile the old anchor still resolves against its
    own retained representation (not current); migration writes a linked new anchor."""
    old = _seed(app, tmp_path)
    nfkc = Profile((step_by_name("crlf-to-lf"), step_by_name("NFKC")))
    upgraded = Ragox(app.home, profile=nfkc)
    path = tmp_path / "seed.txt"
    outcome = upgraded.ingestor.ingest_bytes(
        path.read_bytes(), "seed.txt", "manual-17", revision="v2", tenant="default"
    )
    assert outcome.state.value == "READY"
    manifests = upgraded.store.manifests("default", "manual-17", "v2")
    assert len(manifests) == 2 and manifests[0].manifest.profile == nfkc.id
    still = upgraded.resolve(old, OPERATOR)
    assert still.status is ResolutionStatus.RESOLVED
    assert still.current is False

    nobody = Principal("bob", groups=frozenset({"qa"}))
    refused = upgraded.migrate(old, nobody)
    assert isinstance(refused, Refusal) and refused.status is ResolutionStatus.ACCESS_DENIED

    migrated = upgraded.migrate(old, OPERATOR)
    assert isinstance(migrated, Migration)
    assert migrated.method.value == "source-alignment"
    assert migrated.new.identity.profile == nfkc.id
    new_result = upgraded.resolve(migrated.new, OPERATOR)
    assert new_result.status is ResolutionStatus.RESOLVED and new_result.current is True
    assert new_result.exact == "Prüfung"
    assert upgraded.store.anchor_successors("default", old.anchor_id) == [migrated.new.anchor_id]
    assert upgraded.store.get_anchor("default", old.anchor_id) is not None

    # Once the old representation is no longer retained, the old anchor says why.
    upgraded.store.drop_representation(manifests[1].manifest_id)
    assert upgraded.resolve(old, OPERATOR).status is ResolutionStatus.PROFILE_MISMATCH


def test_migration_across_revisions_by_quote(app: Ragox, tmp_path: Path) -> None:
    """A new revision with other bytes: the passage is found by its unique quote+context."""
    old = _seed(app, tmp_path)
    path = tmp_path / "seed.txt"
    path.write_bytes(b"Vorwort\r\n" + SEED_BYTES)
    app.ingest_path(path, tmp_path, document_id="manual-17", revision="v3")
    migrated = app.migrate(old, OPERATOR)
    assert isinstance(migrated, Migration)
    assert migrated.method.value == "quote-with-context"
    assert migrated.new.revision == "v3"
    assert (migrated.new.start, migrated.new.end) == (9 + 8, 16 + 8)
    assert app.resolve(old, OPERATOR).current is False
    assert app.resolve(migrated.new, OPERATOR).status is ResolutionStatus.RESOLVED
