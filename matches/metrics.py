"""The rating pipeline's metrics (docs/monitoring.md): counters the pulls and the rating
runs add to as they happen, and the gauges read from the database at each scrape."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from django.db import DatabaseError
from prometheus_client import Counter
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from matches.selectors.monitoring import FinishedRun, monitoring

logger = logging.getLogger(__name__)

GAMES_PULLED = Counter(
    "ratings_source_games_pulled",
    "New games stored from a source (pulls and imports).",
    ["source"],
)
GAMES_REJECTED = Counter(
    "ratings_source_games_rejected",
    "Replays from a source that failed validation and were kept aside.",
    ["source"],
)
RATING_BATCHES = Counter("ratings_rating_batches", "Batches of pending games rated.")
GAMES_RATED = Counter(
    "ratings_games_rated", "Games rated as they arrived (a recompute's are not counted)."
)


def count_rated(games: int, batches: int) -> None:
    GAMES_RATED.inc(games)
    RATING_BATCHES.inc(batches)


def _gauge(name: str, documentation: str, labels: list[str] | None = None) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, labels=labels)


def _run_gauges(name: str, what: str, run: FinishedRun | None) -> Iterator[Metric]:
    if run is None:
        return
    seconds = _gauge(f"ratings_{name}_duration_seconds", f"How long the last {what} took.")
    seconds.add_metric([], run.seconds)
    finished = _gauge(
        f"ratings_{name}_last_finished_timestamp_seconds", f"When the last {what} finished."
    )
    finished.add_metric([], run.finished_at.timestamp())
    yield from (seconds, finished)


class PipelineCollector(Collector):
    """The gauges of the database's state, read when Prometheus scrapes."""

    def collect(self) -> Iterator[Metric]:
        try:
            state = monitoring()
        except DatabaseError:
            # The process metrics still reach Prometheus; /readyz names the database.
            logger.warning("the database gauges could not be read", exc_info=True)
            return
        now = time.time()
        lag = _gauge(
            "ratings_source_lag_seconds",
            "Seconds since an enabled source's last pull without an error (or since it was added).",
            ["source"],
        )
        waiting_by_source = _gauge(
            "ratings_source_games_waiting", "A source's stored games not rated yet.", ["source"]
        )
        for source in state.sources:
            if source.enabled:
                lag.add_metric([source.name], now - source.last_success.timestamp())
            waiting_by_source.add_metric([source.name], source.waiting)
        waiting = _gauge("ratings_games_waiting", "Stored games waiting to be rated.")
        waiting.add_metric([], state.waiting)
        oldest = _gauge(
            "ratings_games_waiting_oldest_age_seconds",
            "Seconds since the longest-waiting unrated game was stored (0 when none waits).",
        )
        since = state.oldest_waiting_since
        oldest.add_metric([], 0.0 if since is None else now - since.timestamp())
        yield from (lag, waiting_by_source, waiting, oldest)
        yield from _run_gauges("refresh", "periodic refresh", state.refresh)
        if state.refresh_steps:
            steps = _gauge(
                "ratings_refresh_step_duration_seconds",
                "How long each step of the last periodic refresh took.",
                ["step"],
            )
            for step, seconds in state.refresh_steps.items():
                steps.add_metric([step], seconds)
            yield steps
        yield from _run_gauges("recompute", "full recompute of every rating", state.recompute)
        if state.calibration_temperature is not None:
            temperature = _gauge(
                "ratings_calibration_temperature",
                "The measured temperature of the shown chances (1: they come true as shown).",
            )
            temperature.add_metric([], state.calibration_temperature)
            yield temperature
