"""A reader's scope: what every backend's search index filters by, inside its queries."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

__all__ = ["Scope", "scope_digest"]


@dataclass(frozen=True, slots=True)
class Scope:
    """Who may see what: one tenant, and its groups (or all of them: the operator)."""

    operator: bool
    tenant: str
    groups: tuple[str, ...]


def scope_digest(scope: Scope) -> str:
    """A digest of a scope (tenant, operator, groups): the key under which a home keeps
    its languages, naming no tenant or group."""
    named = json.dumps([scope.tenant, scope.operator, sorted(scope.groups)])
    return hashlib.sha256(named.encode()).hexdigest()
