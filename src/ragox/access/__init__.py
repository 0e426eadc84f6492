"""Principals, tenants, groups, and the read, write and operate decisions.

The decisions are pure functions of the principal and what the caller names
(and, for reads, the revision's current tenant and reader groups); callers ask
them on every request and never cache them.

Write rights are **id prefixes** ("collections"). A write prefix of an ordinary
key starts with one of the key's own read groups and a slash (``staff/``,
``staff/manuals/``): the collection of group ``staff`` is the ids under
``staff/``, and every revision a key supplies there is readable by ``staff``.
So a writer can read what its collection holds, and an id outside every prefix
of a key is refused before anything is looked up (:func:`may_write_id` reads no
store). Only operators (who read every revision of their tenant anyway) may hold
other prefixes, ``*`` (any id) included.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "ANY_ID",
    "DEFAULT_TENANT",
    "Principal",
    "can_read",
    "collection_group",
    "group_problem",
    "groups_problem",
    "may_write_id",
    "parse_groups",
    "parse_write_prefixes",
    "tenant_problem",
]

DEFAULT_TENANT: Final = "default"
#: the write prefix that matches every document id (operators only)
ANY_ID: Final = "*"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who asks. ``operator`` is an administrator of its tenant (the local operator of
    a home, or an ``--operate`` key): it reads every revision of its tenant, whatever
    the groups, and may delete documents and change their readers. ``write`` holds the
    id prefixes whose documents it may create and replace (module docstring). Document
    ids are per tenant, so every principal addresses documents within one tenant."""

    name: str
    tenant: str = DEFAULT_TENANT
    groups: frozenset[str] = frozenset()
    operator: bool = False
    write: frozenset[str] = field(default=frozenset())

    @classmethod
    def local_operator(cls, tenant: str = DEFAULT_TENANT) -> Principal:
        return cls(
            name="operator",
            tenant=tenant,
            groups=frozenset(),
            operator=True,
            write=frozenset({ANY_ID}),
        )

    def scope_key(self) -> str:
        """A key for caches: tenant and groups, never the name alone (DESIGN §7)."""
        return json.dumps([self.tenant, self.operator, sorted(self.groups)])


#: Longest reader group name, in characters.
MAX_GROUP_CHARS: Final = 128
#: Bidirectional controls: an id or a group name shown with them reads as another
#: ("staff/a\u202egnp.txt" shows as "staff/atxt.png")
BIDI_CONTROLS: Final = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
#: control characters, lone surrogates, line and paragraph separators
_FORBIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cs", "Zl", "Zp"})
#: the joiners that words of some scripts need (Persian, Indic, emoji sequences):
#: the only invisible format characters (Unicode category Cf) a name may hold
NAME_JOINERS: Final = frozenset("\u200c\u200d")
#: commas of other scripts and widths: "everyone，hr" read as two groups
_COMMAS: Final = frozenset("\u060c\u201a\u3001\ufe10\ufe11\ufe50\ufe51\uff0c\uff64")


def invisible_format(name: str) -> bool:
    """``name`` holds a bidirectional control or another invisible format character
    (zero-width space, word joiner, BOM, soft hyphen, tags…) but the joiners: it would
    be shown as another name ("staff\u200b" as "staff")."""
    return any(
        c in BIDI_CONTROLS or (unicodedata.category(c) == "Cf" and c not in NAME_JOINERS)
        for c in name
    )


def group_problem(name: str) -> str | None:
    """Why ``name`` cannot be a reader group (one short phrase, no echo of it), else
    None. A group is listed comma-separated (``--groups a,b``, the upload's field) and
    shown to operators, so it holds no comma, no surrounding white space, no control or
    bidirectional characters, and at most :data:`MAX_GROUP_CHARS` characters, in NFC
    form (no decomposed look-alike of another name)."""
    if not name or name != name.strip():
        return "is empty or has white space around it"
    if "," in name or any(c in _COMMAS for c in name):
        return "contains a comma"
    if invisible_format(name) or any(
        unicodedata.category(c) in _FORBIDDEN_CATEGORIES for c in name
    ):
        return (
            "contains a control, invisible or bidirectional character, line break or lone surrogate"
        )
    if len(name) > MAX_GROUP_CHARS:
        return f"is longer than {MAX_GROUP_CHARS} characters"
    if not unicodedata.is_normalized("NFC", name):
        # "de\u0301fault" (a decomposed é) would be a second name that reads as the
        # first; NFKC would refuse real names too ("µ-Labor", half-width katakana)
        return "is not in Unicode NFC form (it reads as another name)"
    return None


def tenant_problem(name: str) -> str | None:
    """Why ``name`` cannot be a tenant (one short phrase, no echo of it), else None: a
    tenant is shown and chosen like a group, so the same rules hold, and ``*`` (which
    marked the operator's answers before schema 7) is no tenant."""
    if name == "*":
        return "is '*', which is reserved"
    return group_problem(name)


def groups_problem(groups: Iterable[str]) -> str | None:
    """The problem (:func:`group_problem`) of the first group, in sorted order, that
    has one, else None."""
    for group in sorted(groups):
        if (problem := group_problem(group)) is not None:
            return problem
    return None


def parse_groups(value: str | None) -> frozenset[str]:
    """``"a, b,,c"`` → ``{"a", "b", "c"}``; group names are trimmed, empties dropped."""
    if not value:
        return frozenset()
    return frozenset(part.strip() for part in value.split(",") if part.strip())


def parse_write_prefixes(
    value: str | None, groups: frozenset[str], operator: bool
) -> frozenset[str]:
    """``--write`` of a key: comma-separated id prefixes, checked against its groups.

    Raises :class:`ValueError` for a prefix that is not ``GROUP/…`` with ``GROUP`` among
    ``groups``, unless the key is an operator's."""
    prefixes = parse_groups(value)
    for prefix in prefixes:
        if not operator and collection_group(prefix, groups) is None:
            raise ValueError(
                f"write prefix {prefix!r} must start with one of the key's groups and '/'"
                " (only --operate keys may write elsewhere)"
            )
    return prefixes


def collection_group(prefix_or_id: str, groups: Iterable[str]) -> str | None:
    """The group among ``groups`` whose collection (``GROUP/``) holds ``prefix_or_id``."""
    head, slash, _ = prefix_or_id.partition("/")
    return head if slash and head in frozenset(groups) else None


def may_write_id(principal: Principal, document_id: str) -> bool:
    """Is ``document_id`` inside one of the principal's write prefixes? Decided from the
    id alone: nothing is looked up, so an id outside costs the same whether it exists."""
    return any(p == ANY_ID or document_id.startswith(p) for p in principal.write)


def can_read(principal: Principal, tenant: str, reader_groups: Iterable[str]) -> bool:
    """May ``principal`` read a revision of ``tenant`` readable by ``reader_groups``?"""
    if principal.tenant != tenant:
        return False
    return principal.operator or not principal.groups.isdisjoint(reader_groups)
