"""/readyz against a site whose PostgreSQL, cache Redis and broker Redis are really stopped
and started again (issue 34): 503 naming the part while it is down, 200 once it is back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.live_processes import ROOT, RedisServer, free_port, get_json, start_site, stop
from tests.worker.conftest import wait_for
from web import embedded_db

pytestmark = pytest.mark.slow


def test_readyz_names_each_stopped_part_and_recovers(tmp_path: Path, cluster: Path):
    database_url = embedded_db.ensure_running(cluster)
    environment = {"DATABASE_URL": database_url, "VAR_DIR": str(tmp_path)}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v0"],
        cwd=ROOT,
        env={**os.environ, **environment},
        check=True,
        timeout=240,
    )
    cache, broker = RedisServer(tmp_path), RedisServer(tmp_path)
    cache.start()
    broker.start()
    port = free_port()
    log = tmp_path / "site.log"
    site = start_site(
        port, log, {**environment, "CACHE_URL": cache.url, "CELERY_BROKER_URL": broker.url}
    )
    readyz = f"http://127.0.0.1:{port}/readyz"

    def answers(status: int, failing: list[str]) -> bool:
        got, body = get_json(readyz)
        return got == status and body.get("failing") == failing

    try:
        wait_for(lambda: answers(200, []), timeout=60, message=f"a ready site\n{log.read_text()}")
        outages = {
            "cache": (cache.stop, cache.start),
            "broker": (broker.stop, broker.start),
            "database": (
                lambda: embedded_db.stop(cluster),
                lambda: embedded_db.ensure_running(cluster),
            ),
        }
        for part, (take_down, bring_back) in outages.items():
            take_down()
            wait_for(
                lambda part=part: answers(503, [part]),
                timeout=30,
                message=f"503 naming {part}\n{log.read_text()}",
            )
            bring_back()
            wait_for(
                lambda: answers(200, []),
                timeout=30,
                message=f"200 after {part} came back\n{log.read_text()}",
            )
    finally:
        stop(site)
        cache.stop()
        broker.stop()
    # Probes are not logged at INFO, even by the development server.
    lines = log.read_text().splitlines()
    assert not [line for line in lines if "GET /readyz" in line and " 200 " in line], lines
