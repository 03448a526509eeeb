"""Bulk writes that the ORM's bulk_create/bulk_update are too slow for.

Ingestion and rating write hundreds of thousands of rows a minute. On PostgreSQL the
rows are streamed with COPY into a temporary table and merged with one statement; on
SQLite an `executemany` of the same statement is already fast. Both paths take the
same rows, so the services above do not care which database they run on.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.db import connection, models

Row = Sequence[Any]
_temp_names = itertools.count()
_SQLITE_MAX_VARIABLES = 32_000


def _column_adapters(model: type[models.Model], columns: Sequence[str]) -> list[Callable | None]:
    """Per column, how a Python value becomes what the database driver expects.

    psycopg takes aware datetimes and dates as they are; Django's SQLite backend stores
    them as naive UTC text, which raw statements must reproduce to keep ordering right.
    """
    if connection.vendor == "postgresql":
        return [None] * len(columns)
    ops = connection.ops
    adapters: list[Callable | None] = []
    for column in columns:
        field = model._meta.get_field(column)  # also finds foreign keys by their "_id" column
        if isinstance(field, models.DateTimeField):
            adapters.append(ops.adapt_datetimefield_value)
        elif isinstance(field, models.DateField):
            adapters.append(ops.adapt_datefield_value)
        else:
            adapters.append(None)
    return adapters


def _adapted(rows: Iterable[Row], adapters: list[Callable | None]) -> Iterable[Row]:
    if not any(adapters):
        return rows
    indexed = [(i, adapt) for i, adapt in enumerate(adapters) if adapt is not None]

    def adapt_row(row: Row) -> list[Any]:
        values = list(row)
        for i, adapt in indexed:
            if values[i] is not None:
                values[i] = adapt(values[i])
        return values

    return (adapt_row(row) for row in rows)


def _copy_to_temp(cursor: Any, table: str, columns: Sequence[str], rows: Iterable[Row]) -> str:
    """COPY rows into a new temporary table shaped like `table`'s columns; returns its name."""
    temp = f"_bulk_{next(_temp_names)}"
    column_list = ", ".join(columns)
    cursor.execute(
        f"CREATE TEMP TABLE {temp} ON COMMIT DROP AS SELECT {column_list} FROM {table} LIMIT 0"
    )
    _copy_rows(cursor, f"COPY {temp} ({column_list}) FROM STDIN", rows)
    return temp


def _copy_rows(cursor: Any, statement: str, rows: Iterable[Row]) -> int:
    """Stream rows through COPY on psycopg's own cursor; its errors still reach callers as
    Django's database errors, like every other statement's."""
    written = 0
    with connection.wrap_database_errors, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)
            written += 1
    return written


def insert(
    model: type[models.Model],
    columns: Sequence[str],
    rows: Iterable[Row],
    on_conflict: str = "",
) -> int:
    """INSERT rows (with an optional ON CONFLICT clause); returns how many rows it wrote.

    `on_conflict` may refer to `excluded.<column>` and to the table by its name.
    """
    table = model._meta.db_table
    column_list = ", ".join(columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql" and not on_conflict:
            # Nothing can conflict: stream straight into the table.
            return _copy_rows(cursor, f"COPY {table} ({column_list}) FROM STDIN", rows)
        if connection.vendor == "postgresql":
            temp = _copy_to_temp(cursor, table, columns, rows)
            cursor.execute(
                f"INSERT INTO {table} ({column_list}) "
                f"SELECT {column_list} FROM {temp} {on_conflict}"
            )
            written = cursor.rowcount
            cursor.execute(f"DROP TABLE {temp}")
            return written
        placeholders = ", ".join(["%s"] * len(columns))
        cursor.executemany(
            f"INSERT INTO {table} ({column_list}) VALUES ({placeholders}) {on_conflict}",
            list(_adapted(rows, _column_adapters(model, columns))),
        )
        return max(cursor.rowcount, 0)


def insert_returning(
    model: type[models.Model],
    columns: Sequence[str],
    rows: Sequence[Row],
    on_conflict: str,
    returning: Sequence[str],
) -> list[tuple]:
    """Like `insert`, but returns the `returning` columns of the rows actually written."""
    table = model._meta.db_table
    column_list = ", ".join(columns)
    returned = ", ".join(returning)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            temp = _copy_to_temp(cursor, table, columns, rows)
            cursor.execute(
                f"INSERT INTO {table} ({column_list}) SELECT {column_list} FROM {temp} "
                f"{on_conflict} RETURNING {returned}"
            )
            written = cursor.fetchall()
            cursor.execute(f"DROP TABLE {temp}")
            return written
        # SQLite: multi-row VALUES statements, each under its limit of bound variables.
        written = []
        adapted = list(_adapted(rows, _column_adapters(model, columns)))
        per_statement = max(1, _SQLITE_MAX_VARIABLES // len(columns))
        row_placeholder = f"({', '.join(['%s'] * len(columns))})"
        for start in range(0, len(adapted), per_statement):
            part = adapted[start : start + per_statement]
            cursor.execute(
                f"INSERT INTO {table} ({column_list}) VALUES "
                f"{', '.join([row_placeholder] * len(part))} {on_conflict} RETURNING {returned}",
                [value for row in part for value in row],
            )
            written += cursor.fetchall()
        return written


def upsert(
    model: type[models.Model],
    columns: Sequence[str],
    rows: Iterable[Row],
    conflict_columns: Sequence[str],
) -> int:
    """INSERT or overwrite, matching on `conflict_columns` (a unique constraint's columns)."""
    assignments = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in conflict_columns)
    return insert(
        model,
        columns,
        rows,
        f"ON CONFLICT ({', '.join(conflict_columns)}) DO UPDATE SET {assignments}",
    )


def update(
    model: type[models.Model],
    key: str,
    columns: Sequence[str],
    rows: Iterable[Row],
    where: str = "",
) -> int:
    """UPDATE many rows by `key` (the first value of each row); returns rows changed.

    `where` adds a condition on the target table (e.g. "rated_at IS NULL"), which
    makes the update a claim: callers compare the count with what they sent.
    """
    table = model._meta.db_table
    all_columns = [key, *columns]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            temp = _copy_to_temp(cursor, table, all_columns, rows)
            assignments = ", ".join(f"{c} = {temp}.{c}" for c in columns)
            condition = f" AND {table}.{where}" if where else ""
            cursor.execute(
                f"UPDATE {table} SET {assignments} FROM {temp} "
                f"WHERE {table}.{key} = {temp}.{key}{condition}"
            )
            changed = cursor.rowcount
            cursor.execute(f"DROP TABLE {temp}")
            return changed
        assignments = ", ".join(f"{c} = %s" for c in columns)
        condition = f" AND {where}" if where else ""
        adapted = _adapted(rows, _column_adapters(model, all_columns))
        cursor.executemany(
            f"UPDATE {table} SET {assignments} WHERE {key} = %s{condition}",
            [(*row[1:], row[0]) for row in adapted],
        )
        return max(cursor.rowcount, 0)


def analyze(tables: Iterable[type[models.Model]]) -> None:
    """Refresh PostgreSQL's planner statistics after a bulk load.

    Until autovacuum gets to them (if it runs at all), the planner would plan against
    the tables' old sizes and pick full scans for pages that should be index lookups.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in tables:
            cursor.execute(f"ANALYZE {model._meta.db_table}")
