"""The benchmarks' PostgreSQL server: its address and the few psql calls they make."""

from __future__ import annotations

import os
import subprocess

SERVER = os.environ.get("BENCH_POSTGRES_SERVER", "postgres://postgres@127.0.0.1:5432")


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
