"""`make run` in small: migrate, ensure the simulator, runstack on an embedded cluster of
its own (DATABASE_URL unset, as on a fresh checkout); Ctrl-C stops everything, the cluster
included."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import psutil
import psycopg

from matches.models import MatchRating
from tests.live_processes import free_port
from tests.worker.conftest import ROOT, wait_for
from web import embedded_db


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def rated(database_url: str) -> bool:
    with psycopg.connect(database_url) as connection:
        query = f"SELECT EXISTS (SELECT 1 FROM {MatchRating._meta.db_table})"
        return connection.execute(query).fetchone()[0]


def test_runstack_serves_pulls_rates_and_stops_on_ctrl_c(tmp_path: Path, cluster: Path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CELERY_BROKER_URL", "CACHE_URL", "DATABASE_URL")
    }
    env.update(
        EMBEDDED_POSTGRES_DIR=str(cluster),
        VAR_DIR=str(tmp_path),
        DEBUG="1",
        CELERY_PULL_SECONDS="1",
        CELERY_RATE_SECONDS="1",
    )
    manage = [sys.executable, "manage.py"]
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    try:
        for command in (
            ["migrate", "--no-input", "-v0"],
            ["sources", "ensure-simulator"],
            ["sources", "add", "drop", "directory", f"path={inbox}"],  # as typed in a shell
        ):
            subprocess.run(manage + command, cwd=ROOT, env=env, check=True, timeout=120)
        server = embedded_db.server_pid(cluster)
        assert server is not None  # started by the settings of the first command
        database_url = embedded_db.ensure_running(cluster)  # the running one's address
        port = free_port()
        log = tmp_path / "runstack.log"
        with log.open("wb") as output:
            stack = subprocess.Popen(
                [*manage, "runstack", "--port", str(port), "--concurrency", "1"],
                cwd=ROOT,
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_for(lambda: answers(f"http://127.0.0.1:{port}/admin/login/"), timeout=60)
            wait_for(lambda: rated(database_url), timeout=90, message=log.read_text())
        finally:
            stack.send_signal(signal.SIGINT)
            code = stack.wait(timeout=60)
        text = log.read_text()
        assert code == 0, text
        children = [int(pid) for pid in re.findall(r"started \w+ \(pid (\d+)\)", text)]
        assert len(children) == 3
        for pid in children:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            raise AssertionError(f"child {pid} still runs after Ctrl-C")
        assert embedded_db.server_pid(cluster) is None, text
        assert not (cluster / "data" / "postmaster.pid").exists(), "not a clean shutdown"
        assert not psutil.pid_exists(server) or psutil.Process(server).status() == "zombie"
    finally:
        embedded_db.stop(cluster)  # whatever a failure left running
