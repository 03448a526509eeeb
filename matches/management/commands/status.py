from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from matches.models import IngestRun
from matches.operations import operations_overview


def _run_line(run: IngestRun) -> str:
    seconds = run.duration_seconds
    duration = "running or interrupted" if seconds is None else f"{seconds:.2f} s"
    line = (
        f"  {run.started_at:%Y-%m-%d %H:%M:%S}  {duration:>10}  fetched {run.fetched}, "
        f"new {run.new}, duplicate {run.duplicate}, rejected {run.rejected}"
    )
    return line + (f"\n    error: {run.error}" if run.error else "")


class Command(BaseCommand):
    help = "Sources with their latest runs, matches waiting to be rated, and rejected replays."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--runs", type=int, default=3, help="runs shown per source")
        parser.add_argument("--rejected", type=int, default=10, help="rejected replays shown")

    def handle(self, *args, runs: int, rejected: int, **options) -> None:
        overview = operations_overview(runs_per_source=runs, rejected=rejected)
        write = self.stdout.write
        for status in overview.sources:
            source = status.source
            state = "enabled" if source.enabled else "disabled"
            write(f"{source.name} ({source.kind}, {state}, cursor {source.cursor!r})")
            for run in status.runs:
                write(_run_line(run))
            if not status.runs:
                write("  no runs yet")
        oldest = overview.oldest_pending
        write(
            f"pending: {overview.pending} matches to rate"
            + (f", the oldest played {oldest:%Y-%m-%d %H:%M:%S}" if oldest else "")
        )
        for waiting in overview.waiting:
            write(
                f"waiting: {waiting.replays} replays wait for character {waiting.code}, "
                f"first seen {waiting.first_seen:%Y-%m-%d %H:%M:%S} (add it in the admin)"
            )
        write(f"rejected: {overview.rejected_total} replays in all")
        for replay in overview.rejected:
            source = replay.source.name if replay.source else "-"
            write(f"  {replay.created_at:%Y-%m-%d %H:%M:%S}  {source}: {replay.reason}")
            write(f"    {replay.raw[:160]}")
