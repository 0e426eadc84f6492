"""Operator commands for one stuck revision: ``ragox retry`` and ``ragox fail``.

Both act as the local operator of the home (they take no principal) and need no
original file: the revision's bytes are in the blob store.
"""

from __future__ import annotations

import click

from ragox.cli._main import Failure, _app, _not_found, _tenant_option, cli
from ragox.cli._render import print_json
from ragox.service import ActionRefused, NotFound

__all__ = ["fail", "retry"]

_REFUSED = {
    ActionRefused.LIVE_JOB: "a live run is working on this revision (it is not stuck)",
    ActionRefused.READY: "the revision is READY",
    ActionRefused.BYTES_MISSING: "the revision's bytes were never stored",
}


def _refuse(refused: ActionRefused, as_json: bool) -> None:
    if as_json:
        print_json({"status": "REFUSED", "reason": refused.value})
    raise Failure(_REFUSED[refused])


@cli.command()
@click.argument("document_id")
@click.option("--revision", required=True, help="The revision to run again.")
@_tenant_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def retry(ctx: click.Context, document_id: str, revision: str, tenant: str, as_json: bool) -> None:
    """Run a stuck or failed revision again from its stored bytes (operator only).

    Runs that died are marked FAILED first; a READY revision is checked and its
    index repaired. Exit 1 when the run fails or a live run holds the revision.
    """
    with _app(ctx, existing=True) as app:
        try:
            outcome = app.retry(document_id, revision, tenant)
        except NotFound:
            _not_found(as_json, "revision")
    if isinstance(outcome, ActionRefused):
        _refuse(outcome, as_json)
        return
    if as_json:
        print_json(
            {
                "document_id": outcome.document_id,
                "revision": outcome.revision,
                "state": outcome.state.value,
                "error": outcome.error_code,
                "error_message": outcome.error_message,
            }
        )
    else:
        error = f"  {outcome.error_code}: {outcome.error_message}" if outcome.error_code else ""
        click.echo(f"{outcome.state.value:<8} {outcome.document_id}@{outcome.revision}{error}")
    if outcome.state.value != "READY":
        ctx.exit(1)


@cli.command()
@click.argument("document_id")
@click.option("--revision", required=True, help="The revision to mark FAILED.")
@_tenant_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def fail(ctx: click.Context, document_id: str, revision: str, tenant: str, as_json: bool) -> None:
    """Mark a stuck revision FAILED (operator only); it never becomes current.

    Refused (exit 1) for a READY revision and while a live run works on it.
    """
    with _app(ctx, existing=True) as app:
        try:
            result = app.fail(document_id, revision, tenant)
        except NotFound:
            _not_found(as_json, "revision")
    if isinstance(result, ActionRefused):
        _refuse(result, as_json)
        return
    if as_json:
        print_json(
            {
                "document_id": result.document_id,
                "revision": result.revision,
                "state": result.state.value,
                "failed_stage": result.failed_stage,
                "error": result.error_code,
            }
        )
    else:
        click.echo(f"{result.state.value:<8} {result.document_id}@{result.revision}")
