"""Fixtures for the worker's fault tests: fake feeds, a broker, real Celery workers.

Real-worker tests use Redis as the broker when REDIS_TEST_URL is set (as in CI), else
the filesystem transport in a temporary folder; each test gets its own queue, so runs
sharing one Redis never take each other's tasks. Subprocess workers share the test
database.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from django.db import connection
from django.db.models import F, Sum

from matches.models import Match, MatchRating, ReplaySource
from players.models import Rating
from ratingsite.celery import app
from tests.worker.fakefeed import FakeFeed

ROOT = Path(__file__).resolve().parents[2]
REDIS_TEST_URL = os.environ.get("REDIS_TEST_URL", "")
WORKER_FLAGS = ["--without-gossip", "--without-mingle", "--without-heartbeat"]


def wait_for(condition: Callable[[], Any], *, timeout: float = 120.0, message: str = "") -> Any:
    """Poll ``condition`` until it returns something true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {message or condition}")
        time.sleep(0.05)


def rated_count() -> int:
    return Match.objects.count() - Match.objects.pending().count()


def games_counted_twice() -> int:
    """Each counted game adds one win and one loss: W-L sums are twice the counted games."""
    totals = Rating.objects.aggregate(games=Sum(F("wins") + F("losses")))["games"] or 0
    return totals - 2 * MatchRating.objects.filter(counted=True).count()


@pytest.fixture
def fake_feed() -> Iterator[Callable[[list], FakeFeed]]:
    feeds: list[FakeFeed] = []

    def make(replays: list) -> FakeFeed:
        feeds.append(FakeFeed(replays))
        return feeds[-1]

    yield make
    for feed in feeds:
        feed.close()


def http_source(url: str, name: str = "feed", **settings: Any) -> ReplaySource:
    """An http source on ``url`` that gives up fast: short timeouts, tiny backoff."""
    return ReplaySource.objects.create(
        name=name,
        kind=ReplaySource.Kind.HTTP,
        settings={
            "url": url,
            "page_size": 3,
            "attempts": 2,
            "backoff": 0.01,
            "connect_timeout": 2.0,
            "read_timeout": 0.5,
            **settings,
        },
    )


class Broker:
    """Where the test sends tasks and its workers read them."""

    def __init__(self, tmp_path: Path) -> None:
        self.queue = f"test-{uuid.uuid4().hex[:12]}"
        self.var_dir = tmp_path / "var"
        self.var_dir.mkdir()
        # The transport the URL names, except the site's own for the filesystem (settings).
        self.transport: str | None = None
        if REDIS_TEST_URL:
            self.url, self.options = REDIS_TEST_URL, {"visibility_timeout": 3600}
        else:
            folder = self.var_dir / "broker"
            folder.mkdir()
            self.url, self.transport = "filesystem://", "web.broker:Transport"
            self.options = {
                "data_folder_in": str(folder),
                "data_folder_out": str(folder),
                "control_folder": str(self.var_dir / "broker-control"),
            }

    def environment(self) -> dict[str, str]:
        """What a worker process needs to read this broker and queue."""
        return {
            "CELERY_BROKER_URL": self.url,
            "CELERY_QUEUE": self.queue,
            "VAR_DIR": str(self.var_dir),  # the filesystem broker's folders live here
        }

    def purge(self) -> None:
        if REDIS_TEST_URL:
            redis.Redis.from_url(REDIS_TEST_URL).delete(self.queue)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """Points the Celery app of this process at a private queue for the test."""
    broker = Broker(tmp_path)
    saved = {
        key: app.conf[key]
        for key in (
            "broker_url",
            "broker_transport",
            "broker_transport_options",
            "task_default_queue",
        )
    }
    app.conf.update(
        broker_url=broker.url,
        broker_transport=broker.transport,
        broker_transport_options=broker.options,
        task_default_queue=broker.queue,
    )
    _forget_connections_and_queues()
    yield broker
    broker.purge()
    app.conf.update(saved)
    _forget_connections_and_queues()


def _forget_connections_and_queues() -> None:
    """Celery caches the broker pool and the queue declarations on first use."""
    app.close()
    app.__dict__.pop("amqp", None)


@pytest.fixture
def live_worker(broker: Broker) -> Iterator[None]:
    """A real Celery worker in this process (a thread), consuming the test's queue."""
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        yield


def database_url(application_name: str) -> str:
    """The test database as a URL, for worker processes; tagged so the test can find them."""
    db = connection.settings_dict
    credentials = quote(db["USER"] or "") + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    # A socket directory (the embedded cluster's) is a host only once quoted.
    host = f"{quote(db['HOST'] or 'localhost', safe='')}:{db['PORT'] or 5432}"
    return f"postgres://{credentials}@{host}/{db['NAME']}?application_name={application_name}"


class WorkerProcesses:
    """Celery workers as child processes (`celery -A ratingsite worker`), killed at teardown."""

    def __init__(self, broker: Broker, tmp_path: Path) -> None:
        self.broker = broker
        self.tmp_path = tmp_path
        self.application_name = f"test-worker-{broker.queue}"
        self.processes: list[subprocess.Popen] = []

    @property
    def paused_file(self) -> Path:
        """Created by a worker started with ``pause_at_batch`` once it waits inside that batch."""
        return self.tmp_path / "paused"

    def start(
        self, *, pool: str = "solo", pause_at_batch: int | None = None, **environment: str
    ) -> subprocess.Popen:
        """A worker process; ``pool="prefork"`` (one child) for what solo lacks: time limits.

        With ``pause_at_batch`` its rating run waits inside that batch (ratings written,
        transaction open) until ``resume()``: tests/worker/paused_worker.py.
        """
        number = len(self.processes)
        env = {
            **os.environ,
            **self.broker.environment(),
            "DATABASE_URL": database_url(self.application_name),
            **environment,
        }
        program = ["-m", "celery", "-A", "ratingsite"]
        if pause_at_batch is not None:
            program = [str(Path(__file__).with_name("paused_worker.py"))]
            env |= {
                "PAUSE_AT_BATCH": str(pause_at_batch),
                "PAUSED_FILE": str(self.paused_file),
                "RESUME_FILE": str(self.tmp_path / "resume"),
            }
        command = [sys.executable, *program, "worker", "--pool", pool]
        command += ["--concurrency", "1"]
        command += ["--loglevel", "INFO", "-n", f"w{number}-{self.broker.queue}@%h", *WORKER_FLAGS]
        log = (self.tmp_path / f"worker-{number}.log").open("wb")
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.processes.append(process)
        return process

    def wait_until_paused(self) -> None:
        wait_for(self.paused_file.exists, timeout=120, message=f"a paused batch\n{self.logs()}")

    def resume(self) -> None:
        (self.tmp_path / "resume").touch()

    def kill(self, process: subprocess.Popen) -> None:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')}"
            for path in sorted(self.tmp_path.glob("worker-*.log"))
        )


@pytest.fixture
def worker_processes(broker: Broker, tmp_path: Path) -> Iterator[WorkerProcesses]:
    workers = WorkerProcesses(broker, tmp_path)
    yield workers
    for process in workers.processes:
        if process.poll() is None:
            process.terminate()
    for process in workers.processes:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            workers.kill(process)
