"""`manage.py ingest_rejected`: store every kept replay that now passes validation."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from matches.services.kept_replays import ingest_kept_replays
from matches.tasks import rate_matches


class Command(BaseCommand):
    help = (
        "Validate every kept (rejected or waiting) replay again and store those that pass "
        "now, under their original source; queue their rating."
    )

    def handle(self, *args: object, **options: object) -> None:
        result = ingest_kept_replays(waiting_only=False)
        if result.new:
            rate_matches.delay()
        self.stdout.write(f"Kept replays that pass now: {result}")
