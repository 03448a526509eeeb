"""`make run` in small: migrate, ensure the simulator, runstack; Ctrl-C stops everything."""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.worker.conftest import ROOT, wait_for


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def rated_matches(database: Path) -> int:
    with sqlite3.connect(database, timeout=10) as db:
        return db.execute("SELECT count(*) FROM matches_matchrating").fetchone()[0]


def test_runstack_serves_pulls_rates_and_stops_on_ctrl_c(tmp_path: Path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")
    }
    env.update(VAR_DIR=str(tmp_path), DEBUG="1", CELERY_PULL_SECONDS="1", CELERY_RATE_SECONDS="1")
    manage = [sys.executable, "manage.py"]
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for command in (
        ["migrate", "--no-input", "-v0"],
        ["sources", "ensure-simulator"],
        ["sources", "add", "drop", "directory", f"path={inbox}"],  # as typed in a shell
    ):
        subprocess.run(manage + command, cwd=ROOT, env=env, check=True, timeout=120)
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
        wait_for(
            lambda: rated_matches(tmp_path / "ratings.sqlite3") > 0,
            timeout=90,
            message=log.read_text(),
        )
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
