"""The database: DATABASE_URL's server when set, else an embedded PostgreSQL cluster
(web.embedded_db) that starts on first use, is shared, survives crashes and stops on cue."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from web import embedded_db

ROOT = Path(__file__).resolve().parents[2]

# Prints what the settings chose, and where the chosen database keeps its data.
SHOW_DATABASE = """
import json, os
import django
django.setup()
from django.conf import settings
from django.db import connection
report = {
    "url": os.environ["DATABASE_URL"],
    "embedded": str(settings.EMBEDDED_POSTGRES_DIR),
    "database": {key: settings.DATABASES["default"][key] for key in ("HOST", "PORT", "NAME")},
}
if os.environ.get("CONNECT"):
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database(), current_setting('data_directory')")
        report["connected"] = list(cursor.fetchone())
print(json.dumps(report))
"""


def show_database(**environment: str) -> dict:
    """What settings pick in a fresh process whose environment has no DATABASE_URL of its own."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key != "DATABASE_URL" and not key.startswith("DJANGO_")
    }
    env.update(DJANGO_SETTINGS_MODULE="ratingsite.settings", **environment)
    result = subprocess.run(
        [sys.executable, "-c", SHOW_DATABASE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def query(url: str, statement: str) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as connection:
        cursor = connection.execute(statement)
        return cursor.fetchall() if cursor.description else []


def test_settings_use_database_url_when_it_is_set(tmp_path: Path):
    unused = tmp_path / "unused"
    report = show_database(
        DATABASE_URL="postgres://ratings@db.example:6543/production",
        EMBEDDED_POSTGRES_DIR=str(unused),
        VAR_DIR=str(tmp_path),
    )

    assert report["database"] == {"HOST": "db.example", "PORT": 6543, "NAME": "production"}
    assert report["embedded"] == "None"
    assert not unused.exists()  # no cluster started beside a named server


def test_settings_start_the_embedded_cluster_when_database_url_is_unset(cluster: Path):
    report = show_database(EMBEDDED_POSTGRES_DIR=str(cluster), CONNECT="1")

    assert report["embedded"] == str(cluster.resolve())
    assert report["database"]["NAME"] == "ratings"
    assert report["connected"] == ["ratings", str(cluster.resolve() / "data")]
    # Exported for the processes it starts, which then use the same server.
    assert report["url"] == embedded_db.ensure_running(cluster)


def test_ensure_running_twice_reuses_the_running_server(cluster: Path):
    url = embedded_db.ensure_running(cluster)
    server = embedded_db.server_pid(cluster)
    query(url, "CREATE TABLE kept (x int)")

    assert embedded_db.ensure_running(cluster) == url
    assert embedded_db.server_pid(cluster) == server
    assert query(url, "SELECT count(*) FROM kept") == [(0,)]


def test_the_cluster_has_pg_trgm_for_name_search(cluster: Path):
    url = embedded_db.ensure_running(cluster)
    query(url, "CREATE EXTENSION pg_trgm")

    assert query(url, "SELECT similarity('Daigo', 'Daig0')") == [(0.5,)]


def test_processes_starting_one_cluster_at_once_share_one_server(cluster: Path):
    start = f"from web import embedded_db; print(embedded_db.ensure_running({str(cluster)!r}))"
    starters = [
        subprocess.Popen([sys.executable, "-c", start], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    urls = {starter.communicate(timeout=120)[0].strip() for starter in starters}

    assert [starter.returncode for starter in starters] == [0, 0, 0]
    assert len(urls) == 1
    assert query(urls.pop(), "SELECT current_database()") == [("ratings",)]


def test_a_killed_server_is_started_again_with_its_data(cluster: Path):
    url = embedded_db.ensure_running(cluster)
    query(url, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)")
    killed = embedded_db.server_pid(cluster)
    os.kill(killed, signal.SIGKILL)
    for _ in range(1200):  # until the kill has landed: gone, or a zombie nobody reaped yet
        if embedded_db.server_pid(cluster) is None:
            break
        time.sleep(0.05)
    assert (cluster / "data" / "postmaster.pid").exists()  # stale, as a crash leaves it

    assert embedded_db.ensure_running(cluster) == url
    assert embedded_db.server_pid(cluster) not in (None, killed)
    assert query(url, "SELECT x FROM kept") == [(7,)]


def test_a_first_setup_cut_off_is_made_again(cluster: Path):
    (cluster / "data").mkdir(parents=True)
    (cluster / "data" / "PG_VERSION").write_text("18\n")  # initdb killed half-way

    url = embedded_db.ensure_running(cluster)

    assert query(url, "SELECT current_database()") == [("ratings",)]


def test_stop_after_runs_the_command_on_its_cluster_returns_its_status_and_stops_it(
    cluster: Path,
):
    command = SHOW_DATABASE + "\nraise SystemExit(3)"
    stop_after = [sys.executable, "-m", "web.embedded_db", "stop-after", str(cluster), "--"]
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    result = subprocess.run(
        [*stop_after, sys.executable, "-c", command],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "ratingsite.settings", "CONNECT": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 3, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["connected"] == ["ratings", str(cluster.resolve() / "data")]
    assert embedded_db.server_pid(cluster) is None
    assert not (cluster / "data" / "postmaster.pid").exists()  # a clean shutdown


def test_stop_without_a_cluster_does_nothing(tmp_path: Path):
    assert embedded_db.stop(tmp_path / "none") is False
    assert not (tmp_path / "none").exists()
