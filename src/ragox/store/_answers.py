"""Stored answers' retention, purge and redaction, the same for both SQL backends:
the SQL is the same but for its parameter mark (``?`` or ``%s``), and each runs
inside the caller's write transaction."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final, Protocol

from ragox.store._records import AnswerRedactor, PurgeCounts, RetentionPolicy

__all__ = [
    "RETENTION_SQL",
    "Connection",
    "purge_answers",
    "redact_answers",
    "retention_policy",
    "store_retention",
]


class _Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> Any: ...


class Connection(Protocol):
    """A sqlite3 or psycopg connection (what these functions use of either)."""

    def execute(self, query: str, params: Sequence[object] = ..., /) -> _Cursor: ...


#: the stored retention periods, as ``(key, value)`` rows
RETENTION_SQL: Final = (
    "SELECT key, value FROM settings WHERE key IN "
    "('answer_retention_seconds', 'trace_retention_seconds')"
)


def retention_policy(rows: Sequence[Sequence[object]]) -> RetentionPolicy:
    """The policy of the rows ``RETENTION_SQL`` read."""
    values = {str(key): value for key, value in rows}
    answers, traces = values.get("answer_retention_seconds"), values.get("trace_retention_seconds")
    return RetentionPolicy(
        answers_seconds=None if answers is None else int(str(answers)),
        traces_seconds=None if traces is None else int(str(traces)),
    )


def store_retention(conn: Connection, mark: str, policy: RetentionPolicy) -> None:
    for key, value in (
        ("answer_retention_seconds", policy.answers_seconds),
        ("trace_retention_seconds", policy.traces_seconds),
    ):
        if value is None:
            conn.execute(f"DELETE FROM settings WHERE key={mark}", (key,))
        else:
            conn.execute(
                f"INSERT INTO settings(key, value) VALUES({mark}, {mark}) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, str(value)),
            )


def purge_answers(
    conn: Connection,
    mark: str,
    answers_before: str | None,
    traces_before: str | None,
    redact: AnswerRedactor | None,
) -> PurgeCounts:
    """Delete answers created before ``answers_before`` (with their traces), traces
    created before ``traces_before``, and redact answers that still hold text of
    documents deleted earlier (e.g. before this schema). Times are ``utc_now()``
    strings; None keeps that kind."""
    traces = answers = 0
    if answers_before is not None:
        traces += conn.execute(
            "DELETE FROM answer_traces WHERE answer_id IN "
            f"(SELECT answer_id FROM answers WHERE created_at < {mark})",
            (answers_before,),
        ).rowcount
        answers = conn.execute(
            f"DELETE FROM answers WHERE created_at < {mark}", (answers_before,)
        ).rowcount
    if traces_before is not None:
        traces += conn.execute(
            f"DELETE FROM answer_traces WHERE created_at < {mark}", (traces_before,)
        ).rowcount
    # (a scan of the links: the operator's purge does it, not the one after
    # every answer, which passes no redactor)
    orphans = (
        conn.execute(
            "SELECT DISTINCT a.tenant, a.document_id FROM answer_documents a "
            "WHERE NOT EXISTS (SELECT 1 FROM documents d "
            "WHERE d.document_id = a.document_id "
            "AND (d.tenant = a.tenant OR a.tenant = '*'))"
        ).fetchall()
        if redact is not None
        else []
    )
    redacted = redact_answers(conn, mark, [(str(t), str(d)) for t, d in orphans], redact)
    return PurgeCounts(answers=answers, traces=traces, redacted=redacted)


def redact_answers(
    conn: Connection,
    mark: str,
    documents: Sequence[tuple[str, str]],
    redact: AnswerRedactor | None,
) -> int:
    """Redact the answers that drew on ``(tenant, document_id)`` pairs, drop their
    traces and forget the link. Answers from before tenants (tenant ``*``) match a
    document id of any tenant. Returns how many answers changed."""
    if redact is None:
        return 0  # the links stay, so that a later purge with a redactor finds them
    by_answer: dict[str, set[str]] = {}
    for tenant, document_id in documents:
        for (answer_id,) in conn.execute(
            f"SELECT answer_id FROM answer_documents WHERE tenant IN ({mark}, '*') "
            f"AND document_id={mark}",
            (tenant, document_id),
        ).fetchall():
            by_answer.setdefault(str(answer_id), set()).add(document_id)
        conn.execute(
            f"DELETE FROM answer_documents WHERE tenant IN ({mark}, '*') AND document_id={mark}",
            (tenant, document_id),
        )
    changed = 0
    for answer_id, deleted in sorted(by_answer.items()):
        conn.execute(f"DELETE FROM answer_traces WHERE answer_id={mark}", (answer_id,))
        found = conn.execute(
            f"SELECT json FROM answers WHERE answer_id={mark}", (answer_id,)
        ).fetchone()
        if found is None:
            continue
        before = json.loads(found[0])
        after = redact(before, frozenset(deleted))
        if after != before:
            conn.execute(
                f"UPDATE answers SET json={mark} WHERE answer_id={mark}",
                (json.dumps(after, ensure_ascii=False), answer_id),
            )
            changed += 1
    return changed
