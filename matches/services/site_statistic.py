"""Writing the precomputed statistics (SiteStatistic rows) that pages read."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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
