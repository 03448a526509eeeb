"""Writing the precomputed statistics (SiteStatistic rows) that pages read."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from matches.models import SiteStatistic


def store_statistic(key: str, data: Any) -> None:
    """Store (or replace) one statistic, stamped with the time now."""
    SiteStatistic.objects.update_or_create(
        key=key, defaults={"data": data, "computed_at": timezone.now()}
    )
