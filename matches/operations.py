"""What operators look at (the admin's operations page and `manage.py status`): sources
with their latest runs, matches waiting to be rated, replays waiting for a character, and
the latest rejected replays."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min

from matches.models import IngestRun, Match, RejectedReplay, ReplaySource
from players.selectors.roster import current_roster


@dataclass(frozen=True)
class SourceStatus:
    source: ReplaySource
    runs: list[IngestRun]  # the latest first


@dataclass(frozen=True)
class WaitingCharacter:
    """Replays kept until a character the roster lacks is added (docs/roster.md)."""

    code: str
    replays: int
    first_seen: datetime


@dataclass(frozen=True)
class Operations:
    sources: list[SourceStatus]
    pending: int
    oldest_pending: datetime | None
    rejected: list[RejectedReplay]  # the latest first
    rejected_total: int
    waiting: list[WaitingCharacter]  # the most waited for first


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
        waiting=waiting_characters(),
    )


def waiting_characters() -> list[WaitingCharacter]:
    """Each character code that replays wait for, with how many and since when: codes the
    roster has already are left out (their replays are being stored)."""
    rows = (
        RejectedReplay.objects.filter(ingested_at__isnull=True)
        .exclude(waiting_for="")
        .exclude(waiting_for__in=list(current_roster().by_code))
        .values("waiting_for")
        .annotate(replays=Count("id"), first_seen=Min("created_at"))
        .order_by("-replays", "waiting_for")
    )
    return [WaitingCharacter(row["waiting_for"], row["replays"], row["first_seen"]) for row in rows]
