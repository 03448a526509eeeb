"""`make run` in small: migrate, ensure the simulator, runstack; Ctrl-C stops everything."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from matches.models import MatchRating
from tests.worker.conftest import ROOT, database_url, wait_for

# The stack's processes share the test database, so the test sees what they commit.
pytestmark = pytest.mark.django_db(transaction=True)


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


def test_runstack_serves_pulls_rates_and_stops_on_ctrl_c(tmp_path: Path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CELERY_BROKER_URL", "CACHE_URL")
    }
    env.update(
        DATABASE_URL=database_url("test-runstack"),
        VAR_DIR=str(tmp_path),
        DEBUG="1",
        CELERY_PULL_SECONDS="1",
        CELERY_RATE_SECONDS="1",
    )
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
            lambda: MatchRating.objects.exists(),
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
