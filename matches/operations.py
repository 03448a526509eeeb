"""What operators look at (the admin's operations page and `manage.py status`): sources
with their latest runs, matches waiting to be rated, and the latest rejected replays."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Min

from matches.models import IngestRun, Match, RejectedReplay, ReplaySource


@dataclass(frozen=True)
class SourceStatus:
    source: ReplaySource
    runs: list[IngestRun]  # the latest first


@dataclass(frozen=True)
class Operations:
    sources: list[SourceStatus]
    pending: int
    oldest_pending: datetime | None
    rejected: list[RejectedReplay]  # the latest first
    rejected_total: int


def operations_overview(*, runs_per_source: int = 5, rejected: int = 20) -> Operations:
    sources = [
        SourceStatus(source, list(source.runs.order_by("-started_at")[:runs_per_source]))
        for source in ReplaySource.objects.order_by("name")
    ]
    pending = Match.objects.pending()
    return Operations(
        sources=sources,
        pending=pending.count(),
        oldest_pending=pending.aggregate(oldest=Min("played_at"))["oldest"],
        rejected=list(RejectedReplay.objects.select_related("source")[:rejected]),
        rejected_total=RejectedReplay.objects.count(),
    )
