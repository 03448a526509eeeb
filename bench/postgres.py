"""The benchmarks' PostgreSQL server: its address, the few psql calls they make, and a
server of their own configured as a production database of that size would be."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SERVER = os.environ.get("BENCH_POSTGRES_SERVER", "postgres://postgres@127.0.0.1:5432")

# What docs/capacity.md tells an operator to set for ten million games on a machine of
# this size (24 GiB), instead of PostgreSQL's defaults for a small shared machine
# (128 MB of shared buffers, a checkpoint every 1 GB of WAL). With the defaults, each
# game imported into a full database dirties two random pages of the two side indexes
# (770 MB each) and logs each page whole again after every checkpoint: 2.8 GB of WAL
# for 200,000 games, which forces a checkpoint every few seconds.
PRODUCTION_SETTINGS = {
    "shared_buffers": "4GB",
    "effective_cache_size": "16GB",
    "max_wal_size": "16GB",
    "checkpoint_timeout": "30min",
    "wal_compression": "lz4",
}
PRIVATE_PORT = 5433


def url(database: str) -> str:
    return f"{SERVER}/{database}"


def psql(database: str, statement: str) -> str:
    """Run one statement; its output, or '' when it failed (e.g. no such database)."""
    result = subprocess.run(
        ["psql", url(database), "-tAq", "-c", statement],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() if result.returncode == 0 else ""


def recreate(database: str) -> str:
    """Drop and create a database; returns its URL."""
    for statement in (f"DROP DATABASE IF EXISTS {database}", f"CREATE DATABASE {database}"):
        subprocess.run(["psql", url("postgres"), "-q", "-c", statement], check=True)
    return url(database)


def holds_rated_league(database: str, games: int) -> bool:
    """Whether a database already holds `games` matches, rated and with statistics."""
    return psql(database, "SELECT count(*) FROM matches_match") == str(games) and psql(
        database, "SELECT count(*) FROM matches_sitestatistic WHERE key = 'totals'"
    ) not in ("", "0")


def _as_server_user(command: list[str]) -> list[str]:
    """PostgreSQL's programs refuse to run as root: run them as its own user then."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextmanager
def private_server(settings: dict[str, str], port: int = PRIVATE_PORT) -> Iterator[str]:
    """A server of the machine's PostgreSQL installation in a new data directory, with
    `settings`, for the block; this module's URLs point at it meanwhile. Stopped and
    removed afterwards. Yields a description of it for the report."""
    global SERVER
    binaries = Path(
        subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    home = Path(tempfile.mkdtemp(prefix="bench-postgres-", dir="/var/tmp"))
    data = home / "data"
    if os.geteuid() == 0:
        shutil.chown(home, "postgres", "postgres")
    options = " ".join(f"-c {name}={value}" for name, value in settings.items())
    control = [str(binaries / "pg_ctl"), "-D", str(data), "-w"]
    stock = SERVER
    try:
        for command in (
            [str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
             "-E", "UTF8", "--locale=C.UTF-8"],
            [*control, "-l", str(home / "log"), "-o",
             f"-p {port} -k {home} -c listen_addresses=127.0.0.1 {options}", "start"],
        ):  # fmt: skip
            started = subprocess.run(_as_server_user(command), capture_output=True, text=True)
            if started.returncode:
                log = (home / "log").read_text() if (home / "log").exists() else ""
                raise RuntimeError(f"{command[0]} failed: {started.stdout}{started.stderr}{log}")
        SERVER = f"postgres://postgres@127.0.0.1:{port}"
        version = psql("postgres", "SHOW server_version")
        yield f"PostgreSQL {version} started for the run with " + ", ".join(
            f"{name} = {value}" for name, value in settings.items()
        )
    finally:
        SERVER = stock
        subprocess.run(_as_server_user([*control, "-m", "fast", "stop"]), capture_output=True)
        shutil.rmtree(home, ignore_errors=True)
