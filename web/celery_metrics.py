"""The worker's side of the metrics and logs (docs/monitoring.md): tasks counted by name
and outcome, each task's log lines tagged with its id, and a heartbeat the worker's main
process writes to the cache, so that /metrics can tell when no worker is running."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from celery import Celery, bootsteps, signals
from django.core.cache import cache
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from web import logs
from web.metrics import TASKS

logger = logging.getLogger(__name__)

HEARTBEAT_KEY = "worker-heartbeat"
HEARTBEAT_SECONDS = 15.0


def write_heartbeat() -> None:
    try:
        cache.set(HEARTBEAT_KEY, time.time(), timeout=None)
    except Exception:  # the cache down: /readyz names it; the worker goes on
        logger.warning("the worker heartbeat could not be written", exc_info=True)


class Heartbeat(bootsteps.StartStopStep):
    """Writes the time to the cache every HEARTBEAT_SECONDS while the worker runs."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        super().__init__(worker, **kwargs)
        self.entry: Any = None

    def start(self, worker: Any) -> None:
        write_heartbeat()
        self.entry = worker.timer.call_repeatedly(HEARTBEAT_SECONDS, write_heartbeat)

    def stop(self, worker: Any) -> None:
        if self.entry is not None:
            self.entry.cancel()


class HeartbeatCollector(Collector):
    """When a worker last wrote its heartbeat, read at scrape time."""

    def collect(self) -> Iterator[Metric]:
        try:
            seen = cache.get(HEARTBEAT_KEY)
        except Exception:
            logger.warning("the worker heartbeat could not be read", exc_info=True)
            return
        if seen is not None:
            gauge = GaugeMetricFamily(
                "ratings_worker_last_seen_timestamp_seconds",
                "When a Celery worker last wrote its heartbeat (every 15 s while it runs).",
            )
            gauge.add_metric([], seen)
            yield gauge


def _count(outcome: str) -> Callable[..., None]:
    def count(sender: Any = None, **_: Any) -> None:
        TASKS.labels(getattr(sender, "name", str(sender)), outcome).inc()

    return count


def _tag_logs(task_id: str | None = None, **_: Any) -> None:
    logs.task_id.set(task_id)


def _untag_logs(**_: Any) -> None:
    logs.task_id.set(None)


_OUTCOMES = {
    "success": signals.task_success,
    "failure": signals.task_failure,
    "retry": signals.task_retry,
    "revoked": signals.task_revoked,
}


def instrument_worker(app: Celery) -> None:
    """Count tasks, tag their log lines and start the heartbeat in `app`'s workers."""
    for outcome, signal in _OUTCOMES.items():
        signal.connect(_count(outcome), weak=False)
    signals.task_prerun.connect(_tag_logs, weak=False)
    signals.task_postrun.connect(_untag_logs, weak=False)
    app.steps["worker"].add(Heartbeat)
