"""The CLI's JSON printer gives exactly ``json.dumps(value, ensure_ascii=False,
indent=2)`` for any value (issue 15: its own encoder is faster than the standard
library's indenting one, which is pure Python)."""

from __future__ import annotations

import enum
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragox.cli._render import json_text

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
_KEYS = st.text() | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(), inner, max_size=4)
        | st.dictionaries(_KEYS, inner, max_size=3)
    ),
    max_leaves=30,
)


@given(_VALUES)
def test_json_text_equals_the_standard_encoder(value: object) -> None:
    """Any JSON value (text with lone surrogates and any code point, big integers, every
    float, nested lists, tuples and objects, keys that are not strings) prints as the
    standard library prints it."""
    assert json_text(value) == json.dumps(value, ensure_ascii=False, indent=2)


class _Colour(enum.StrEnum):
    RED = "red"


class _Size(enum.IntEnum):
    BIG = 3


def test_json_text_of_enums_and_unencodable_values() -> None:
    """Enums of str and int print as their values (as the standard encoder prints
    them); a value JSON cannot hold raises the standard encoder's error."""
    value = {"colour": _Colour.RED, "size": _Size.BIG, "list": [_Colour.RED]}
    assert json_text(value) == json.dumps(value, ensure_ascii=False, indent=2)
    with pytest.raises(TypeError, match="not JSON serializable"):
        json_text({"set": {1, 2}})
