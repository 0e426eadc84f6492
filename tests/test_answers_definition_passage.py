"""A definition question's evidence is led by the passage that defines the asked term
(issue 16, a new user's questions): "Was ist SELinux?" over a handbook whose SELinux
chapter names SELinux in every paragraph was answered with "Die Unterstützung von
SELinux ist in den Standard-Kerneln enthalten": lexical search ranked the short
paragraphs dense in the word first, and the one that says what SELinux is came 16th."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.answer._definitions import asked_term, defines
from ragox.service import Ragox

DEFINITION = (
    "14.5. Introduction to Frobnix\n\n"
    "14.5.1. Principles\n\n"
    "Frobnix (Fast Robust Object Binding) is a caching layer built on the kernel's "
    "page cache interface. In practice, the kernel asks the layer before each read "
    "whether a block it holds is still valid, and the layer answers from a table kept "
    "in memory that records, for every block, the time it was last written, the "
    "process that wrote it and the checksum computed at that time; a block whose "
    "checksum no longer matches is read again from the disk and the table entry is "
    "renewed. The table is written to the disk at shutdown and read again at boot, so "
    "that a restarted machine does not start with an empty cache and the first reads "
    "after a boot are as fast as the later ones."
)
USAGE = [
    "14.5.2. Setting up Frobnix\n\nFrobnix support is built into the standard kernels. "
    "The core tools support Frobnix without modifications. It is thus easy to enable "
    "Frobnix.",
    "Frobnix modules are stored in /usr/share/frobnix. Load a Frobnix module with frobnix-load.",
    "The Frobnix system is now ready. To enable Frobnix, add frobnix=1 to the kernel parameters.",
    "Frobnix logs go to /var/log/frobnix. Read the Frobnix log with frobnix-log.",
    "You should also have a look at the Frobnix wiki page: Frobnix users share "
    "their Frobnix settings there.",
    "Removing a Frobnix module is done with frobnix-unload. Frobnix keeps the "
    "module's Frobnix table.",
    "14.5.3. Managing Frobnix\n\nFrobnix rules are modular. Each Frobnix rule names a "
    "Frobnix class.",
    "The Frobnix class of a file is shown by ls -Z. Frobnix classes are kept in "
    "extended attributes.",
    "Frobnix policies are compiled by frobnix-compile. A Frobnix policy lists Frobnix rules.",
    "Frobnix users are mapped to roles by frobnix-map. Frobnix roles group Frobnix rules.",
    "Frobnix audits denials in the Frobnix log. Each Frobnix denial names the rule.",
    "Frobnix can be switched to permissive mode with frobnix-permissive. In Frobnix "
    "permissive mode nothing is denied.",
]


def test_a_definition_has_a_shape_and_opens_with_the_term() -> None:
    term = asked_term("What is Frobnix?")
    assert term == ({"frobnix"},)
    assert defines(term, DEFINITION)
    assert not defines(term, USAGE[0])  # "Frobnix support is built into …"
    # the shape without the asked term, and the term not where the sentence opens
    assert not defines(term, "LVM (Logical Volume Manager) is a layer for disks.")
    assert not defines(term, "The kernel asks the layer, and it is a cache: Frobnix.")
    assert asked_term("How do I enable Frobnix?") == ()
    # the words that ask are none of the term ("mean" would find "a practical means")
    assert asked_term("What does LDAP mean?") == ({"ldap"},)
    assert not defines(asked_term("What does LDAP mean?"), "This is a practical means of it.")
    # every word of a term of several: "called" is no system call, a password no root one
    system_call = asked_term("What is a system call?")
    assert not defines(system_call, "Multiprocessor support — also called SMP — is a feature.")
    assert defines(system_call, "A system call is a request of a program to the kernel.")
    root_password = asked_term("What is a root password?")
    assert not defines(root_password, "The provided password is the MD5 encrypted version.")


@pytest.fixture
def home(tmp_path: Path) -> Ragox:
    folder = tmp_path / "docs"
    folder.mkdir()
    app = Ragox(tmp_path / "home")
    # a chapter's pages, each a document of its own
    for number, text in enumerate([DEFINITION, *USAGE]):
        path = folder / f"frobnix-{number:02}.txt"
        path.write_text(text, encoding="utf-8")
        app.ingest_path(path, folder, language="en")
    return app


def test_the_definition_leads_the_evidence(home: Ragox) -> None:
    try:
        hits = home.search("What is Frobnix?", OPERATOR, limit=10)
        first_hit = home.store.text(hits[0].manifest_id)[hits[0].start : hits[0].end]
        record = home.ask("What is Frobnix?", OPERATOR)
    finally:
        home.close()
    # the defining passage is no first hit of plain search: the others are denser
    assert "Fast Robust Object Binding" not in first_hit
    assert not record.abstained
    first = record.citations[0].anchor.quote.exact
    assert first.startswith("Frobnix (Fast Robust Object Binding) is a caching layer"), first


def test_a_definition_among_the_hits_leads_them(home: Ragox) -> None:
    """A deeper answer (more candidates) holds the defining passage among its hits, far
    down: the evidence keeps its first few passages, so it moves first."""
    try:
        record = home.ask("What is Frobnix?", OPERATOR, candidates=20)
    finally:
        home.close()
    assert not record.abstained
    first = record.citations[0].anchor.quote.exact
    assert first.startswith("Frobnix (Fast Robust Object Binding) is a caching layer"), first
