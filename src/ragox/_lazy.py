"""Package exports loaded on first use (PEP 562), so that a command imports only the
modules it needs: ``ragox status`` never loads PyMuPDF, numpy or httpx.

A package lists its exports by module; ``from ragox.search import SearchMode``
then imports ``ragox.search._search`` alone. Type checkers read the same names from
the package's ``if TYPE_CHECKING:`` imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


class _LazyModule:
    """Stands for a module until an attribute is first read, then imports it."""

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Any = None

    def __getattr__(self, attribute: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attribute)


def lazy_module(name: str) -> Any:
    """A stand-in for ``import name`` that imports on first use: numpy and httpx cost
    a tenth of a second or more, and ``status`` or a lexical search needs neither.
    Modules write ``if TYPE_CHECKING: import numpy as np`` ``else: np =
    lazy_module("numpy")`` so that type checkers see the real module."""
    return _LazyModule(name)


__all__ = ["lazy_exports", "lazy_module"]


def lazy_exports(
    namespace: MutableMapping[str, Any], modules: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a package whose ``namespace`` (its
    ``globals()``) exports ``modules``: module path (relative to the package) →
    names. A name is imported once and then kept in the namespace."""
    package = str(namespace["__name__"])
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__
