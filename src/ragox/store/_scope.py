"""A reader's scope: what every backend's search index filters by, inside its queries."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Scope"]


@dataclass(frozen=True, slots=True)
class Scope:
    """Who may see what: one tenant, and its groups (or all of them: the operator)."""

    operator: bool
    tenant: str
    groups: tuple[str, ...]
