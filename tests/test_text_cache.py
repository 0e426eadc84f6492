"""The stores' text cache (``ragox.store._textcache``): bounded in entries and in code
points, the newest text always kept, the count of code points held right after texts
are replaced, dropped and cleared."""

from __future__ import annotations

from ragox.store._textcache import TextLru


def test_the_oldest_text_goes_first_when_entries_run_out() -> None:
    cache = TextLru()
    for name in "abc":
        cache.put(name, name * 10, entries=2, code_points=1000)
    assert "a" not in cache and len(cache) == 2
    assert cache.get("b") == "b" * 10  # now the most recently used
    cache.put("d", "d", entries=2, code_points=1000)
    assert "c" not in cache and cache.found(["b", "c", "d"]) == {"b": "b" * 10, "d": "d"}


def test_code_points_held_follow_replacements_and_drops() -> None:
    cache = TextLru()
    cache.put("a", "x" * 60, entries=10, code_points=100)
    cache.put("a", "x" * 10, entries=10, code_points=100)  # replaced: 10 held, not 70
    cache.put("b", "y" * 80, entries=10, code_points=100)
    assert "a" in cache and "b" in cache  # 90 code points
    cache.pop("b")
    cache.pop("missing")
    cache.put("c", "z" * 85, entries=10, code_points=100)
    assert "a" in cache and "c" in cache  # 95: nothing dropped
    cache.put("d", "w" * 10, entries=10, code_points=100)  # 105: the oldest goes
    assert "a" not in cache and len(cache) == 2
    cache.clear()
    cache.put("e", "v" * 100, entries=10, code_points=100)
    assert "e" in cache and len(cache) == 1


def test_the_newest_text_stays_even_over_the_bound() -> None:
    cache = TextLru()
    cache.put("a", "x", entries=10, code_points=5)
    cache.put("huge", "x" * 50, entries=10, code_points=5)
    assert "huge" in cache and "a" not in cache and len(cache) == 1
