"""Principals, tenants, groups and the read decision.

The decision is a pure function of the principal and the revision's current
tenant and reader groups; callers ask it on every request and never cache it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = ["DEFAULT_TENANT", "Principal", "can_read", "parse_groups"]

DEFAULT_TENANT: Final = "default"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who asks. ``operator`` is the local administrator of a home: it reads every
    revision of its tenant, whatever the groups. Document ids are per tenant, so every
    principal, the operator included, addresses documents within one tenant."""

    name: str
    tenant: str = DEFAULT_TENANT
    groups: frozenset[str] = frozenset()
    operator: bool = False

    @classmethod
    def local_operator(cls, tenant: str = DEFAULT_TENANT) -> Principal:
        return cls(name="operator", tenant=tenant, groups=frozenset(), operator=True)

    def scope_key(self) -> str:
        """A key for caches: tenant and groups, never the name alone (DESIGN §7)."""
        return json.dumps([self.tenant, self.operator, sorted(self.groups)])


def parse_groups(value: str | None) -> frozenset[str]:
    """``"a, b,,c"`` → ``{"a", "b", "c"}``; group names are trimmed, empties dropped."""
    if not value:
        return frozenset()
    return frozenset(part.strip() for part in value.split(",") if part.strip())


def can_read(principal: Principal, tenant: str, reader_groups: Iterable[str]) -> bool:
    """May ``principal`` read a revision of ``tenant`` readable by ``reader_groups``?"""
    if principal.tenant != tenant:
        return False
    return principal.operator or not principal.groups.isdisjoint(reader_groups)
