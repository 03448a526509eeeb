"""What /metrics reads from the database at each scrape (docs/monitoring.md): a few small
indexed queries, whatever the size of the league."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min, OuterRef, Subquery

from matches.models import IngestRun, Match, PendingMatch, ReplaySource, SiteStatistic
from matches.selectors.calibration import CALIBRATION_STATISTIC

# SiteStatistic keys of the last finished refresh and recompute: {"seconds": duration},
# stamped with when they finished (matches.services.site_statistic.timed_run).
LAST_REFRESH = "last_refresh"
LAST_RECOMPUTE = "last_recompute"
# The seconds of each step of the last refresh of the derived tables: {step: seconds}.
LAST_REFRESH_STEPS = "last_refresh_steps"


@dataclass(frozen=True)
class SourceState:
    name: str
    enabled: bool
    # The end of the latest pull without an error, else when the source was added.
    last_success: datetime
    waiting: int  # its stored games not rated yet


@dataclass(frozen=True)
class FinishedRun:
    seconds: float
    finished_at: datetime


@dataclass(frozen=True)
class Monitoring:
    sources: list[SourceState]
    waiting: int
    oldest_waiting_since: datetime | None  # when the longest-waiting game was stored
    refresh: FinishedRun | None
    recompute: FinishedRun | None
    refresh_steps: dict[str, float]  # empty before the first refresh
    calibration_temperature: float | None  # None before the first fit


def _source_states() -> list[SourceState]:
    # The latest successful run of each source: a walk down its (source, -started_at) index.
    latest_success = (
        IngestRun.objects.filter(source=OuterRef("pk"), finished_at__isnull=False, error="")
        .order_by("-started_at")
        .values("finished_at")[:1]
    )
    waiting = dict(
        PendingMatch.objects.values_list("match__source_id").annotate(count=Count("match_id"))
    )
    return [
        SourceState(name, enabled, last_success or created_at, waiting.get(pk, 0))
        for pk, name, enabled, created_at, last_success in ReplaySource.objects.annotate(
            last_success=Subquery(latest_success)
        )
        .order_by("name")
        .values_list("pk", "name", "enabled", "created_at", "last_success")
    ]


def _finished_runs() -> dict[str, FinishedRun]:
    rows = SiteStatistic.objects.filter(key__in=(LAST_REFRESH, LAST_RECOMPUTE))
    return {
        key: FinishedRun(seconds, finished_at)
        for key, seconds, finished_at in rows.values_list("key", "data__seconds", "computed_at")
    }


def monitoring() -> Monitoring:
    runs = _finished_runs()
    steps = SiteStatistic.objects.filter(key=LAST_REFRESH_STEPS).values_list("data", flat=True)
    temperature = (
        SiteStatistic.objects.filter(key=CALIBRATION_STATISTIC)
        .values_list("data__temperature", flat=True)
        .first()
    )
    return Monitoring(
        sources=_source_states(),
        waiting=PendingMatch.objects.count(),
        oldest_waiting_since=Match.objects.pending().aggregate(oldest=Min("ingested_at"))["oldest"],
        refresh=runs.get(LAST_REFRESH),
        recompute=runs.get(LAST_RECOMPUTE),
        refresh_steps=steps.first() or {},
        calibration_temperature=temperature,
    )
