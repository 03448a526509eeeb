"""Writing the precomputed statistics (SiteStatistic rows) that pages read."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.utils import timezone

from matches.models import SiteStatistic


def store_statistic(key: str, data: Any) -> None:
    """Store (or replace) one statistic, stamped with the time now."""
    SiteStatistic.objects.update_or_create(
        key=key, defaults={"data": data, "computed_at": timezone.now()}
    )


@contextmanager
def timed_run(key: str) -> Iterator[None]:
    """Store how long the block took under `key` ({"seconds": ...}, stamped with when it
    ended) once it ends without raising: /metrics reads the last refresh and recompute."""
    started = time.perf_counter()
    yield
    store_statistic(key, {"seconds": time.perf_counter() - started})


def ids_digest(ids_sql: str) -> str:
    """A digest of the ids a subquery selects (the flagged or unrated players'): what a
    kept sum over their games was computed under."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT md5(coalesce(string_agg(id, ',' ORDER BY id), '')) FROM ({ids_sql}) ids"
        )
        return cursor.fetchone()[0]
