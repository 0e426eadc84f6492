"""``ragox worker``: a process that claims queued ingestion jobs and runs them."""

from __future__ import annotations

import json
import signal
import sys
import threading
from types import FrameType

import click

from ragox.cli._main import _app, cli
from ragox.ingest import DEFAULT_LEASE_SECONDS, WorkerConfig, WorkResult

__all__ = ["worker"]


def _result_json(result: WorkResult) -> dict[str, object]:
    claim, outcome = result.claim, result.outcome
    return {
        "job_id": claim.job_id,
        "tenant": claim.tenant,
        "document_id": claim.document_id,
        "revision": claim.revision,
        "attempt": claim.attempt,
        "reclaimed_from": claim.reclaimed_from,
        "note": result.note.value,
        "state": None if outcome is None else outcome.state.value,
        "error": result.error if outcome is None else outcome.error_code,
        "lease_lost": result.lease_lost,
    }


@cli.command()
@click.option(
    "--once",
    is_flag=True,
    help="Run one job, then exit (waiting for it while none is queued; with --drain, "
    "exit at once when none is).",
)
@click.option("--max-jobs", type=click.IntRange(1), default=None, help="Exit after this many jobs.")
@click.option(
    "--drain",
    is_flag=True,
    help="Exit when no job waits and no claimed run is unfinished (runs of workers that "
    "died are taken over once their lease ran out).",
)
@click.option(
    "--lease",
    "lease_seconds",
    type=click.FloatRange(0.2),
    default=DEFAULT_LEASE_SECONDS,
    show_default=True,
    help="Seconds a claim holds without renewal (renewed every third of it); a worker "
    "that dies loses its job to another worker this long after.",
)
@click.option(
    "--poll",
    "poll_seconds",
    type=click.FloatRange(0.01),
    default=1.0,
    show_default=True,
    help="Seconds an idle worker waits before asking the queue again.",
)
@click.option(
    "--max-attempts",
    type=click.IntRange(1),
    default=3,
    show_default=True,
    help="Claims of one job by workers that died before its revision fails (WORKER_LOST).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON line per job.")
@click.pass_context
def worker(
    ctx: click.Context,
    once: bool,
    max_jobs: int | None,
    drain: bool,
    lease_seconds: float,
    poll_seconds: float,
    max_attempts: int,
    as_json: bool,
) -> None:
    """Claim queued ingestion jobs and run them (uploads of `ragox serve --queue`,
    `ragox ingest --queue`). Any number of workers share one store's queue.

    SIGTERM or Ctrl-C lets the current job finish, then exits.
    """
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    config = WorkerConfig(lease_seconds, poll_seconds, max_attempts)

    def report(result: WorkResult) -> None:
        if as_json:
            sys.stdout.write(json.dumps(_result_json(result), ensure_ascii=False) + "\n")
            sys.stdout.flush()
            return
        claim = result.claim
        state = result.outcome.state.value if result.outcome else result.note.value
        lost = "  (lease lost)" if result.lease_lost else ""
        click.echo(f"{state:<8} {claim.document_id}@{claim.revision}  {claim.job_id}{lost}")

    with _app(ctx) as app:
        work = app.worker(config)
        if not as_json:
            click.echo(f"ragox worker {work.worker_id}", err=True)
        work.run(max_jobs=1 if once else max_jobs, drain=drain, stop=stop, report=report)
