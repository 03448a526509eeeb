"""Debian's Prometheus scrapes the running site (gunicorn, two workers) and a real Celery
worker, sharing one multiprocess folder, and the metrics are read back through
Prometheus's query API (issue 34): the lag of a source that stopped grows; the backlog
rises as games arrive and falls when the worker rates them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from matches.models import Match
from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import store_replays
from matches.sources.pulling import add_source
from matches.tasks import pull_replays, rate_matches
from tests.factories import replay
from tests.live_processes import ROOT, free_port, get, get_json, stop
from tests.worker.conftest import database_url, http_source, wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
    pytest.mark.skipif(not shutil.which("prometheus"), reason="Debian's prometheus is missing"),
]

TOKEN = "scrape-token-of-the-test"


class Prometheus:
    """Debian's Prometheus on a free loopback port, scraping `target` every second."""

    def __init__(self, folder: Path, target: str) -> None:
        self.port = free_port()
        config = folder / "prometheus.yml"
        config.write_text(
            json.dumps(  # JSON is YAML
                {
                    "global": {"scrape_interval": "1s", "scrape_timeout": "1s"},
                    "rule_files": [str(ROOT / "docs" / "alerts.yml")],
                    "scrape_configs": [
                        {
                            "job_name": "ratings",
                            "authorization": {"credentials": TOKEN},
                            "static_configs": [{"targets": [target]}],
                        }
                    ],
                }
            )
        )
        self.log = folder / "prometheus.log"
        with self.log.open("wb") as output:
            self.process = subprocess.Popen(
                [
                    "prometheus",
                    f"--config.file={config}",
                    f"--storage.tsdb.path={folder / 'data'}",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                    "--log.level=warn",
                ],
                stdout=output,
                stderr=subprocess.STDOUT,
            )

    def value(self, query: str) -> float | None:
        """The single value of an instant query, None when it has no result."""
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode(
            {"query": query}
        )
        status, body = get_json(url)
        if status != 200 or not body["data"]["result"]:
            return None
        [series] = body["data"]["result"]
        return float(series["value"][1])

    def wait_for_value(self, query: str, accept: Callable[[float], bool], message: str) -> float:
        """The query's value once `accept` takes it (Prometheus scrapes every second)."""

        def accepted() -> list[float]:
            value = self.value(query)
            return [value] if value is not None and accept(value) else []

        return wait_for(accepted, timeout=60, message=message)[0]


def test_prometheus_reads_lag_and_backlog_from_the_site_and_the_worker(
    tmp_path, broker, worker_processes, fake_feed
):
    shared = {
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prometheus-multiproc"),
        "CACHE_URL": str(tmp_path / "cache"),  # one file cache: the worker's heartbeat
        "METRICS_BEARER_TOKEN": TOKEN,
        "METRICS_ALLOWED_ADDRESSES": "192.0.2.1",  # not loopback: the token lets it in
    }
    site_port = free_port()
    site_log = (tmp_path / "site.log").open("wb")
    site = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "ratingsite.wsgi",
            "--workers",
            "2",
            "--bind",
            f"127.0.0.1:{site_port}",
        ],
        cwd=ROOT,
        env={
            **os.environ,
            **broker.environment(),
            **shared,
            "DATABASE_URL": database_url("test-scrape-site"),
        },
        stdout=site_log,
        stderr=subprocess.STDOUT,
    )
    worker_processes.start(**shared)
    prometheus = Prometheus(tmp_path, f"127.0.0.1:{site_port}")
    try:
        wait_for(lambda: get(f"http://127.0.0.1:{site_port}/healthz")[0] == 200, timeout=60)
        assert get(f"http://127.0.0.1:{site_port}/metrics")[0] == 403  # no token, not allowed
        prometheus.wait_for_value('up{job="ratings"}', lambda up: up == 1, "a first scrape")

        # A source pulls once by the worker, then its feed stops: its lag grows.
        now = timezone.now()
        feed = fake_feed([replay(n, played_at=now - timedelta(minutes=30 - n)) for n in range(5)])
        http_source(feed.url, name="stops")
        pull_replays.delay()
        wait_for(lambda: Match.objects.count() == 5 and not Match.objects.pending().exists())
        lag = 'ratings_source_lag_seconds{source="stops"}'
        first = prometheus.wait_for_value(lag, lambda seconds: seconds < 30, "a fresh pull")
        feed.close()
        pull_replays.delay()  # fails: the feed is gone
        time.sleep(3)
        later = prometheus.wait_for_value(lag, lambda seconds: seconds > first + 2, "lag growing")
        assert later > first + 2

        # Games arrive: the backlog rises; the worker rates them: it falls to nothing.
        rated_before = prometheus.value("sum(ratings_games_rated_total)")
        direct = add_source(name="direct", kind="directory", settings={"path": str(tmp_path)})
        arriving = [
            replay(n, played_at=now - timedelta(minutes=20 - n / 10)) for n in range(100, 140)
        ]
        store_replays(source=direct, replays=iter_replay_payloads(arriving))
        prometheus.wait_for_value("ratings_games_waiting", lambda n: n == 40, "a backlog of 40")
        oldest = prometheus.value("ratings_games_waiting_oldest_age_seconds")
        assert oldest is not None and 0 <= oldest < 60
        rate_matches.delay()
        prometheus.wait_for_value("ratings_games_waiting", lambda n: n == 0, "the backlog rated")
        # Counted in the worker process, added up by the site's /metrics.
        rated = prometheus.wait_for_value(
            "sum(ratings_games_rated_total)", lambda n: n >= rated_before + 40, "games rated"
        )
        assert rated >= rated_before + 40
        tasks = (
            'sum(ratings_celery_tasks_total{task="matches.tasks.rate_matches",outcome="success"})'
        )
        assert prometheus.wait_for_value(tasks, lambda n: n >= 1, "tasks counted") >= 1
        assert prometheus.value("time() - ratings_worker_last_seen_timestamp_seconds") < 60
        # Both gunicorn workers' scrapes are in one sum.
        scrapes = 'sum(ratings_http_request_duration_seconds_count{view="metrics",status="200"})'
        assert prometheus.wait_for_value(scrapes, lambda n: n >= 5, "scrapes counted") >= 5
    finally:
        stop(prometheus.process)
        stop(site)
        site_log.close()
