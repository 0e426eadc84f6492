"""``ragox reprocess``: rebuild stale revisions and print the migration report.

An operator command (it takes no principal): it rebuilds representations, search
texts, chunks, vectors and lexical rows of revisions made by older parsers,
profiles or processing stages, and reports per anchor whether it was migrated or
needs review. ``--dry-run`` prints the same report and changes nothing.
"""

from __future__ import annotations

import click

from ragox.cli._main import _app, _not_found, _tenant_option, cli
from ragox.cli._render import print_json, reprocess_json, shown_id
from ragox.ingest import AnchorOutcome, ReprocessReport
from ragox.service import NotFound

__all__ = ["reprocess"]


@cli.command()
@click.option(
    "--documents", default=None, help="Comma-separated document ids (default: every document)."
)
@click.option("--dry-run", is_flag=True, help="Report what a rebuild would do; change nothing.")
@click.option("--history", is_flag=True, help="List the stored reports of earlier rebuilds.")
@_tenant_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def reprocess(
    ctx: click.Context,
    documents: str | None,
    dry_run: bool,
    history: bool,
    tenant: str,
    as_json: bool,
) -> None:
    """Rebuild revisions made by older parsers or processing stages (operator only).

    The new representation is built beside the old one and becomes current at once
    with its index; every anchor on the old one is migrated when its quote with its
    context occurs exactly once in the new text, else listed for review. Exit 1 when
    a rebuild failed.
    """
    ids = [d.strip() for d in documents.split(",") if d.strip()] if documents else None
    if history:
        with _app(ctx, existing=True) as app:
            reports = app.reprocess_history(tenant)
        if as_json:
            print_json({"reports": reports})
        for stored in [] if as_json else reports:
            # a run that did not end (stopped, crashed) lists what it did before
            ended = (
                "" if stored.get("complete", True) else "  (incomplete: stopped, or still running)"
            )
            click.echo(
                f"{stored['report_id']}  {stored['created_at']}  "
                f"{_documents(stored['documents'])}{ended}"
            )
        return
    with _app(ctx, existing=True) as app:
        try:
            report = app.reprocess(ids, dry_run=dry_run, tenant=tenant)
        except NotFound:
            _not_found(as_json, "document")
        except KeyboardInterrupt:
            # the revisions rebuilt before the stop are in the stored report
            click.echo("Interrupted: `ragox reprocess --history` lists what was rebuilt.", err=True)
            ctx.exit(130)
    if as_json:
        print_json(reprocess_json(report))
    else:
        _print(report)
    if report.failed:
        ctx.exit(1)


def _print(report: ReprocessReport) -> None:
    verb = "would rebuild" if report.dry_run else "rebuilt"
    if not report.rebuilds:
        click.echo("Nothing is stale.")
        return
    for r in report.rebuilds:
        stages = ",".join(s.value for s in r.stale)
        error = f"  {r.error_code}" if r.error_code else ""
        click.echo(f"{r.state.value:<8} {r.document_id}@{r.revision}  stale: {stages}{error}")
    click.echo("")
    click.echo(f"Anchors ({verb} {len(report.rebuilds)} revision(s)):")
    outcomes = list(AnchorOutcome)
    for doc, counts in report.by_document().items():
        parts = [f"{o.value} {counts[o]}" for o in outcomes if counts.get(o)]
        review = sum(n for o, n in counts.items() if o.needs_review)
        summary = ", ".join(parts) if parts else "no anchors"
        click.echo(f"  {doc}: {summary}  (review: {review})")


def _documents(documents: object) -> str:
    """A stored report's documents as a line: ``notes.md (MIGRATED 3), guide.rst``
    (before: the stored mapping as Python writes a dict)."""
    if not isinstance(documents, dict):
        return str(documents)
    shown = []
    for document_id, counts in documents.items():
        tally = ", ".join(f"{state} {n}" for state, n in counts.items()) if counts else ""
        shown.append(
            f"{shown_id(str(document_id))} ({tally})" if tally else shown_id(str(document_id))
        )
    return ", ".join(shown) or "(no documents)"
