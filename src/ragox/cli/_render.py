"""Printing for people and machines; the JSON shapes live in :mod:`ragox.service`."""

from __future__ import annotations

import json
import math
import re
import sys
from json.encoder import encode_basestring

from ragox.service._json import (
    check_json,
    document_status_json,
    documents_json,
    hit_json,
    in_current_json,
    ingest_item_json,
    migration_json,
    refusal_json,
    reprocess_json,
    resolution_json,
    status_summary_json,
    successor_json,
    target_json,
)

__all__ = [
    "check_json",
    "document_status_json",
    "documents_json",
    "hit_json",
    "in_current_json",
    "ingest_item_json",
    "migration_json",
    "print_json",
    "refusal_json",
    "reprocess_json",
    "resolution_json",
    "shown_id",
    "shown_text",
    "status_summary_json",
    "successor_json",
    "target_json",
]


#: what a name must not bring into a terminal line: control characters and line and
#: paragraph separators (a file named "a\nREADY  payroll.txt" printed a line of its
#: own) and bidirectional controls
_NAME_UNSAFE = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
#: …and what a document's text shown to people must not: the bidirectional overrides,
#: embeddings and isolates that reorder what follows ("total \u202e0001\u202c EUR"
#: read as 1000), control characters other than line breaks and tabs, and the line and
#: paragraph separators that a log viewer splits lines at (a forged "Sources:" line)
_TEXT_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown_id(value: str) -> str:
    """A path, document id or revision label as a people's line shows it: control and
    bidirectional characters as escapes (``--json`` keeps them exact)."""
    return _NAME_UNSAFE.sub(_escaped, value)


def shown_text(value: str) -> str:
    """Document text as a people's line shows it: bidirectional controls and control
    characters other than line breaks and tabs as escapes; the stored text and
    ``--json`` keep them exact."""
    return _TEXT_UNSAFE.sub(_escaped, value)


def print_json(value: object) -> None:
    sys.stdout.write(json_text(value) + "\n")
    sys.stdout.flush()


class _Unusual(Exception):
    """A value :func:`json_text` leaves to the standard encoder."""


def json_text(value: object) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=2)``, character for character, in
    about half its time (issue 15: `status --json` of every document of a large home
    spent most of its time in the standard library's Python encoder, which it uses
    whenever there is an indent). Values it does not know (a key that is not a
    string, a float that is not finite, an object JSON cannot hold) go to
    ``json.dumps``, which gives the same text or raises the same error."""
    out: list[str] = []
    try:
        _encode(value, "\n", out)
    except _Unusual:
        return json.dumps(value, ensure_ascii=False, indent=2)
    return "".join(out)


def _encode(value: object, newline: str, out: list[str]) -> None:
    """Appends ``value`` at the indentation of ``newline`` (a line break and spaces)."""
    # the checks in the standard encoder's order: str first (a str enum is text),
    # then the singletons, then int before float (bool is an int)
    if isinstance(value, str):
        out.append(encode_basestring(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise _Unusual
        out.append(float.__repr__(value))
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            out.append(separator)
            _encode(item, inner, out)
            separator = "," + inner
        out.append(newline + "]")
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        separator = "{" + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Unusual
            out.append(separator)
            out.append(encode_basestring(key))
            out.append(": ")
            kind = type(item)  # the common leaves without a call (exact types only)
            if kind is str:
                out.append(encode_basestring(item))
            elif item is None:
                out.append("null")
            elif kind is int:
                out.append(int.__repr__(item))
            else:
                _encode(item, inner, out)
            separator = "," + inner
        out.append(newline + "}")
    else:
        raise _Unusual
