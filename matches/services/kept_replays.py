"""Kept replays stored as games after all (docs/roster.md): those waiting for a character
once it is added, and any kept replay that passes validation after a rule was relaxed
(`manage.py ingest_rejected`).

A kept replay is validated again from its raw text against the roster of now; one that
passes is stored under its original source (so `unique_source_replay` keeps it once,
however often a feed delivers it again) and its row is marked ingested in the same
transaction, keeping its run; one that still fails gets its new reason.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from matches.models import RejectedReplay, ReplaySource
from matches.replays.batch import parse_batch
from matches.replays.readers import RawReplay, reread
from matches.services.ingest import IngestResult, store_replays
from matches.services.ingest_rows import MAX_REASON_CHARS
from players.selectors.roster import current_roster

BATCH = 5000  # kept replays read and stored per transaction


def ingest_kept_replays(*, waiting_only: bool) -> IngestResult:
    """Store every kept replay not ingested yet that now passes (with ``waiting_only``,
    only those waiting for a character the roster now has); returns what happened to
    those that passed (new or duplicate)."""
    codes = current_roster().codes
    kept = RejectedReplay.objects.filter(ingested_at__isnull=True, source__isnull=False)
    if waiting_only:
        # Along the partial index of waiting replays (matches.models.RejectedReplay).
        kept = kept.exclude(waiting_for="").filter(waiting_for__in=list(codes))
    result = IngestResult()
    for source in ReplaySource.objects.filter(id__in=kept.values("source_id")).order_by("id"):
        after = 0
        while rows := list(kept.filter(source=source, id__gt=after).order_by("id")[:BATCH]):
            after = rows[-1].id
            result.add(_ingest(source, rows, codes))
    return result


def _ingest(
    source: ReplaySource, rows: list[RejectedReplay], codes: dict[str, int]
) -> IngestResult:
    now = timezone.now()
    skew = timedelta(seconds=settings.REPLAY_MAX_CLOCK_SKEW_SECONDS)
    passing: list[tuple[RejectedReplay, RawReplay]] = []
    changed: list[RejectedReplay] = []
    for row in rows:
        replay = reread(row.raw)
        valid, rejected = parse_batch([replay], now=now, max_clock_skew=skew, characters=codes)
        if valid:
            passing.append((row, replay))
        elif (rejected[0].reason, rejected[0].waiting_for) != (row.reason, row.waiting_for):
            row.reason, row.waiting_for = (
                rejected[0].reason[:MAX_REASON_CHARS],
                rejected[0].waiting_for,
            )
            changed.append(row)
    with transaction.atomic():
        result = store_replays(source=source, replays=[replay for _, replay in passing])
        ingested = [row.id for row, _ in passing]
        RejectedReplay.objects.filter(id__in=ingested).update(ingested_at=now)
        RejectedReplay.objects.bulk_update(changed, ["reason", "waiting_for"])
    return result
