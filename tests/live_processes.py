"""Servers a test starts on 127.0.0.1 as child processes, each stopped at the end."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str, *, timeout: float = 10.0, headers: dict | None = None) -> tuple[int, bytes]:
    """Status and body of a GET; 0 when nothing answers."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


def get_json(url: str, **kwargs) -> tuple[int, dict]:
    status, body = get(url, **kwargs)
    return status, (json.loads(body) if body else {})


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


class RedisServer:
    """A redis-server of the test's own on a free port, which it can stop and start again;
    bounded and evicting, as the site's start check (web.E002) asks of a cache."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
                "--maxmemory",
                "64mb",
                "--maxmemory-policy",
                "allkeys-lru",
            ],
            stdout=subprocess.DEVNULL,
        )

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)


def start_site(port: int, log: Path, environment: dict[str, str]) -> subprocess.Popen:
    """The site under runserver on 127.0.0.1:`port` (no reloader), logging to `log`."""
    with log.open("wb") as output:
        return subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env={**os.environ, **environment},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
