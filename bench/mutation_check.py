"""A small mutation check: each deliberate bug of issue 10 must fail at least one test.

``python bench/mutation_check.py [NAME ...]`` copies ``src`` and ``tests`` to a
temporary folder, runs the targeted tests once unchanged (they must pass), then applies
each mutation alone (a textual patch of one source file), runs only the tests named for
it, and restores the file. It prints a table (mutation, tests, killed) and exits 1 when
a mutation survives, when a patch no longer applies (the code it targets changed: update
the patch), or when the unchanged baseline fails. Runs one copy of the tree per core (at
most 4) at once; takes one to two minutes on two cores.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _table import print_table

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``old`` by ``new``, which must occur exactly ``count`` times."""

    old: str
    new: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class Mutation:
    """Apply ``edits`` to ``path``, then expect one of ``tests`` (pytest node ids or
    files) to fail."""

    name: str
    path: str
    edits: tuple[Edit, ...]
    tests: tuple[str, ...]


REGRESSIONS = "tests/test_regressions.py"
RETENTION = "tests/test_retention.py"
API = "src/ragox/api/_app.py"

_OPERATOR = "Principal.local_operator(who.tenant)"

MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "original skips the group check",
        API,
        (
            Edit(
                'never renders in our origin."""\n'
                "        manifest_id = readable_revision(document_id, revision, who)\n",
                'never renders in our origin."""\n'
                f"        manifest_id = readable_revision(document_id, revision, {_OPERATOR})\n",
            ),
        ),
        (f"{REGRESSIONS}::test_outsider_key_gets_no_original_or_page",),
    ),
    Mutation(
        "page image skips the group check",
        API,
        (
            Edit(
                '        """A PDF page rendered by PyMuPDF as PNG (rotation applied)."""\n'
                "        manifest_id = readable_revision(document_id, revision, who)\n",
                '        """A PDF page rendered by PyMuPDF as PNG (rotation applied)."""\n'
                f"        manifest_id = readable_revision(document_id, revision, {_OPERATOR})\n",
            ),
        ),
        (f"{REGRESSIONS}::test_outsider_key_gets_no_original_or_page",),
    ),
    Mutation(
        "API keys stored in plain text",
        "src/ragox/service/_ragox.py",
        (Edit("sha256_hex(key.encode())", "key", count=3),),
        (f"{REGRESSIONS}::test_api_keys_never_stored_in_plain_text",),
    ),
    Mutation(
        "embedder-mismatch refusal removed",
        "src/ragox/search/_search.py",
        (Edit("        if indexed != self.embedder.identity.key:\n", "        if False:\n"),),
        (f"{REGRESSIONS}::test_search_with_another_embedder_is_refused",),
    ),
    Mutation(
        "scope applied after the FTS top-k",
        "src/ragox/store/sqlite/_index.py",
        (
            # every partition of the tenant is ranked (as the old per-tenant table was),
            # and the scope only filters the top of that ranking, without deepening
            Edit(
                "                _TENANT_PARTITIONS if scope.operator else _READABLE_PARTITIONS, "
                "_params(scope)\n",
                "                _TENANT_PARTITIONS, _params(scope)\n",
            ),
            Edit("    return max(4 * limit, 200)\n", "    return limit\n"),
            Edit(
                "            if len(window) < batch:\n"
                "                break\n"
                "            if len(found) >= limit:\n",
                "            break  # the first window only\n            if len(found) >= limit:\n",
            ),
        ),
        (f"{REGRESSIONS}::test_scope_inside_the_lexical_query",),
    ),
    Mutation(
        "viewer does not re-verify the quote",
        "src/ragox/web/static/viewer.js",
        (
            Edit("  if (range.toString() !== anchor.quote.exact) {\n", "  if (false) {\n"),
            Edit("  if (shown !== anchor.quote.exact) {\n", "  if (false && shown) {\n"),
        ),
        ("tests/test_viewer_mismatch.py",),
    ),
    Mutation(
        "original without its sandbox CSP",
        API,
        (
            Edit(
                '                "Content-Security-Policy": "sandbox; default-src \'none\'",\n', ""
            ),
        ),
        (f"{REGRESSIONS}::test_original_download_is_a_sandboxed_attachment",),
    ),
    Mutation(
        "original not an attachment",
        API,
        (Edit('                "Content-Disposition": "attachment",\n', ""),),
        (f"{REGRESSIONS}::test_original_download_is_a_sandboxed_attachment",),
    ),
    Mutation(
        "delete leaves answer records unredacted",
        "src/ragox/service/_ragox.py",
        (
            Edit(
                "delete_document(tenant, document_id, redact=_redact)",
                "delete_document(tenant, document_id)",
            ),
        ),
        (f"{RETENTION}::test_delete_redacts_answers_and_traces",),
    ),
    Mutation(
        "answer stored after its document's deletion keeps the text",
        "src/ragox/store/sqlite/_sqlite.py",
        (Edit("            if gone and redact is not None:\n", "            if False:\n"),),
        (f"{RETENTION}::test_answer_stored_after_its_document_was_deleted_is_redacted",),
    ),
    Mutation(
        "another process keeps its caches after a deletion",
        "src/ragox/store/sqlite/_sqlite.py",
        (
            Edit(
                '        """\n        self._forget_if_erased()\n        rows = (\n',
                '        """\n        rows = (\n',
            ),
            Edit(  # the text cache's two readers: text() and the hits' cached_texts()
                "        self._forget_if_erased()\n        with self._texts_lock:\n",
                "        with self._texts_lock:\n",
                count=2,
            ),
        ),
        (f"{RETENTION}::test_caches_of_another_process_forget_deleted_text",),
    ),
    Mutation(
        "expired answers still shown",
        "src/ragox/service/_ragox.py",
        (
            Edit(
                "        if policy.answers_seconds is not None and record.created_at < cutoff(\n",
                "        if False and record.created_at < cutoff(\n",
            ),
        ),
        (f"{RETENTION}::test_retention_expires_answers_and_traces",),
    ),
    Mutation(
        "traces readable by any principal",
        "src/ragox/service/_ragox.py",
        (
            Edit(
                "        if not principal.operator:\n"
                "            raise NotFound(answer_id)\n"
                "        record = self._stored_answer",
                "        record = self._stored_answer",
            ),
        ),
        (f"{RETENTION}::test_traces_are_the_operators",),
    ),
    Mutation(
        "per_document raised from 3 to 1000",
        "src/ragox/answer/_context.py",
        (Edit("    per_document: int = 3\n", "    per_document: int = 1000\n"),),
        (f"{REGRESSIONS}::test_one_document_cannot_flood_the_context",),
    ),
    Mutation(
        "a deleted document's words stay in the full-text index's segments",
        "src/ragox/store/sqlite/_sqlite.py",
        (
            Edit(
                "            self.index.compact(conn, [p for p, g in after.items() "
                "if before.get(p) != g])\n",
                "            pass\n",
            ),
        ),
        (
            "tests/test_lexical_compaction.py"
            "::test_a_deleted_documents_words_leave_every_file_of_the_home",
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class Outcome:
    mutation: str
    tests: str
    killed: str
    seconds: float


def _pytest(tree: Path, tests: tuple[str, ...]) -> int:
    """Run ``tests`` of the copy at ``tree`` with its own sources first on the path."""
    env = {
        **os.environ,
        "PYTHONPATH": str(tree / "src"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, timeout=600, check=False)
    return done.returncode


def _copy_tree(target: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for part in ("src", "tests"):
        shutil.copytree(ROOT / part, target / part, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", target / "pyproject.toml")


def _jobs() -> int:
    """How many copies of the tree are tested at once: one per core, at most 4."""
    return max(1, min(4, len(os.sched_getaffinity(0))))


def _baseline(tree: Path, targets: tuple[str, ...]) -> Outcome:
    started = time.perf_counter()
    passed = _pytest(tree, targets) == 0
    return Outcome(
        "(none: baseline)",
        f"{len(targets)} targets",
        "passes" if passed else "FAILS",
        time.perf_counter() - started,
    )


def _mutant(tree: Path, mutation: Mutation) -> Outcome:
    """Apply ``mutation`` to the copy at ``tree``, run its tests, restore the file."""
    source = tree / mutation.path
    original = source.read_text(encoding="utf-8")
    shown = ", ".join(t.split("::")[-1] for t in mutation.tests)
    mutated = original
    for edit in mutation.edits:
        found = mutated.count(edit.old)
        if found != edit.count:
            break
        mutated = mutated.replace(edit.old, edit.new)
    else:
        found = -1
    if found >= 0:
        return Outcome(mutation.name, shown, f"PATCH NOT APPLIED ({found} matches)", 0.0)
    source.write_text(mutated, encoding="utf-8")
    started = time.perf_counter()
    try:
        code = _pytest(tree, mutation.tests)
    finally:
        source.write_text(original, encoding="utf-8")
    # 1: tests ran and failed. Anything else (collection or usage errors) kills
    # nothing that a test asserts, so it is reported, not counted as killed.
    verdict = {0: "NO (survived)", 1: "yes"}.get(code, f"ERROR (pytest exit {code})")
    return Outcome(mutation.name, shown, verdict, time.perf_counter() - started)


def run(chosen: list[Mutation]) -> tuple[list[Outcome], bool]:
    """Outcomes per mutation, and whether the unchanged targeted tests passed.

    The baseline and the mutations run ``_jobs()`` at a time, each in a copy of the tree
    of its own (a mutation patches its copy, so no two runs share one)."""
    targets = tuple(dict.fromkeys(test for m in chosen for test in m.tests))
    jobs = _jobs()
    with tempfile.TemporaryDirectory(prefix="ragox-mutants-") as folder:
        trees: queue.Queue[Path] = queue.Queue()
        for number in range(jobs):
            tree = Path(folder) / f"tree-{number}"
            _copy_tree(tree)
            trees.put(tree)

        def task(mutation: Mutation | None) -> Outcome:
            tree = trees.get()
            try:
                return _baseline(tree, targets) if mutation is None else _mutant(tree, mutation)
            finally:
                trees.put(tree)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            outcomes = list(pool.map(task, [None, *chosen]))
    return outcomes, outcomes[0].killed == "passes"


def main(names: list[str]) -> int:
    chosen = [m for m in MUTATIONS if not names or any(n in m.name for n in names)]
    if not chosen:
        print(f"no mutation matches {names}", file=sys.stderr)
        return 2
    outcomes, baseline = run(chosen)
    print_table(
        "Mutation check (each deliberate bug must fail a test)",
        ("mutation", "test run", "killed", "seconds"),
        [(o.mutation, o.tests, o.killed, f"{o.seconds:.1f}") for o in outcomes],
    )
    killed = all(o.killed == "yes" for o in outcomes[1:])
    return 0 if baseline and killed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
