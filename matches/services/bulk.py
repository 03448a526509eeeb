"""Bulk writes that the ORM's bulk_create/bulk_update are too slow for.

Ingestion and rating write hundreds of thousands of rows a minute. On PostgreSQL the
rows are streamed with COPY into a temporary table and merged with one statement; on
SQLite an `executemany` of the same statement is already fast. Both paths take the
same rows, so the services above do not care which database they run on.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from django.db import connection, models
from psycopg.copy import QueuedLibpqWriter

from matches.services import binary_copy

Row = Sequence[Any]
_temp_names = itertools.count()
_SQLITE_MAX_VARIABLES = 32_000
_COPY_BLOCK_BYTES = 1 << 20


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


# Binary COPY needs each column's type; a table's column types never change while the
# process runs, so they are asked for once per (table, columns).
_column_types: dict[tuple[str, tuple[str, ...]], list[int]] = {}


def _types(cursor: Any, table: str, columns: Sequence[str]) -> list[int]:
    key = (table, tuple(columns))
    if key not in _column_types:
        cursor.execute(f"SELECT {', '.join(columns)} FROM {table} LIMIT 0")
        _column_types[key] = [column.type_code for column in cursor.description]
    return _column_types[key]


def column_types(model: type[models.Model], columns: Sequence[str]) -> list[int]:
    """PostgreSQL type oids of a table's columns, as binary COPY data must be encoded."""
    with connection.cursor() as cursor:
        return _types(cursor, model._meta.db_table, columns)


def copy_file(model: type[models.Model], columns: Sequence[str], path: Path) -> None:
    """Stream a file of binary COPY data (signature to trailer) into a table (PostgreSQL)."""
    with (
        connection.cursor() as cursor,
        path.open("rb") as file,
        _binary_copy(cursor, model._meta.db_table, columns, None) as copy,
    ):
        while block := file.read(_COPY_BLOCK_BYTES):
            copy.write(block)


def _copy_to_temp(cursor: Any, table: str, columns: Sequence[str], rows: Iterable[Row]) -> str:
    """COPY rows into a new temporary table shaped like `table`'s columns; returns its name."""
    temp = f"_bulk_{next(_temp_names)}"
    column_list = ", ".join(columns)
    types = _types(cursor, table, columns)
    cursor.execute(
        f"CREATE TEMP TABLE {temp} ON COMMIT DROP AS SELECT {column_list} FROM {table} LIMIT 0"
    )
    _copy_rows(cursor, temp, columns, types, rows)
    return temp


@contextmanager
def _binary_copy(
    cursor: Any, table: str, columns: Sequence[str], types: list[int] | None
) -> Iterator[Any]:
    """A binary COPY into `table` on psycopg's own cursor (about four times faster than
    text COPY to build); without `types` it takes data already encoded. Its errors
    still reach callers as Django's database errors, like every other statement's."""
    statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)"
    # Data goes out on a thread of psycopg's while the caller prepares the next rows.
    writer = QueuedLibpqWriter(cursor.cursor)
    with connection.wrap_database_errors, cursor.cursor.copy(statement, writer=writer) as copy:
        if types is not None:
            copy.set_types(types)
        yield copy


def copy_text_into_temp(
    cursor: Any, name: str, columns: Sequence[tuple[str, str]], data: bytes
) -> None:
    """A temporary table `name` of `columns` (name, SQL type), dropped at the commit,
    holding `data`: rows already in PostgreSQL's text COPY format, on a cursor of this
    connection."""
    cursor.execute(
        f"CREATE TEMP TABLE {name} ({', '.join(f'{n} {t}' for n, t in columns)}) ON COMMIT DROP"
    )
    with connection.wrap_database_errors, cursor.cursor.copy(f"COPY {name} FROM STDIN") as copy:
        copy.write(data)


def _copy_rows(
    cursor: Any, table: str, columns: Sequence[str], types: list[int], rows: Iterable[Row]
) -> int:
    written = 0
    with _binary_copy(cursor, table, columns, types) as copy:
        for row in rows:
            copy.write_row(row)
            written += 1
    return written


@contextmanager
def insert_stream(
    model: type[models.Model], columns: Sequence[str]
) -> Iterator[Callable[[Iterable[Row]], None]]:
    """A function that inserts rows, called many times: every call feeds one COPY that
    stays open until the block ends, so the database takes in each batch while the
    caller computes the next. Meanwhile this connection can run nothing else (PostgreSQL)."""
    table = model._meta.db_table
    with (
        connection.cursor() as cursor,
        _binary_copy(cursor, table, columns, _types(cursor, table, columns)) as copy,
    ):
        write_row = copy.write_row

        def copy_rows(rows: Iterable[Row]) -> None:
            for row in rows:
                write_row(row)

        yield copy_rows


def plain_connection_params() -> dict[str, Any]:
    """This connection's settings as plain values, for opening another connection to the
    same database from a thread or process (the driver's own objects stay behind)."""
    return {
        key: value
        for key, value in connection.get_connection_params().items()
        if isinstance(value, str | int)
    }


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
            return _copy_rows(cursor, table, columns, _types(cursor, table, columns), rows)
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


def insert_and_record_new(
    model: type[models.Model],
    columns: Sequence[str],
    rows: Sequence[Row],
    on_conflict: str,
    *,
    returning: Sequence[str],
    record: type[models.Model],
    record_columns: Sequence[str],
) -> int:
    """Like `insert`, and also write the `returning` columns of each row actually
    written into `record`'s `record_columns` (e.g. queue new matches); returns how
    many rows were new. On PostgreSQL both happen in one statement."""
    table, record_table = model._meta.db_table, record._meta.db_table
    column_list = ", ".join(columns)
    returned = ", ".join(returning)
    recorded = ", ".join(record_columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            temp = _copy_to_temp(cursor, table, columns, rows)
            cursor.execute(
                f"WITH new AS (INSERT INTO {table} ({column_list}) "
                f"SELECT {column_list} FROM {temp} {on_conflict} RETURNING {returned}) "
                f"INSERT INTO {record_table} ({recorded}) SELECT {returned} FROM new"
            )
            written = cursor.rowcount
            cursor.execute(f"DROP TABLE {temp}")
            return written
        # SQLite: multi-row VALUES statements, each under its limit of bound variables.
        new: list[tuple] = []
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
            new += cursor.fetchall()
        # The returned values are already in SQLite's stored form: written back as they are.
        cursor.executemany(
            f"INSERT INTO {record_table} ({recorded}) "
            f"VALUES ({', '.join(['%s'] * len(record_columns))})",
            new,
        )
    return len(new)


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


@contextmanager
def indexes_built_after(
    tables: Iterable[type[models.Model]], *, keep_unique: bool = False
) -> Iterator[None]:
    """Load tables without their indexes, and build the indexes once at the end.

    On PostgreSQL, filling a large table and then building each index in one sorted
    pass costs a fraction of keeping the indexes up to date row by row. Primary keys
    and unique constraints are dropped and re-added from their own definitions (a
    duplicate loaded meanwhile fails the re-add, and with it the transaction), so only
    tables no foreign key points at may be passed; with `keep_unique` they stay, for
    loads that rely on them (ON CONFLICT) or tables others point at, and only the
    other indexes are set aside. Dropping an index locks its table until the commit.
    On SQLite this does nothing. Must run inside the transaction that loads the tables.
    """
    build = set_indexes_aside(tables, keep_unique=keep_unique)
    yield
    build()


def set_indexes_aside(
    tables: Iterable[type[models.Model]], *, keep_unique: bool = False
) -> Callable[[], None]:
    """`indexes_built_after` in two steps: drop the indexes now, and return the function
    that builds them back (which may be called again after a failed attempt rolled
    back to a savepoint: say, once a duplicate that failed a unique index is gone)."""
    if connection.vendor != "postgresql":
        return lambda: None
    names = [model._meta.db_table for model in tables]
    with connection.cursor() as cursor:
        constraints = []
        if not keep_unique:
            cursor.execute(
                "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) "
                "FROM pg_constraint "
                "WHERE conrelid = ANY(%s::regclass[]) AND contype IN ('p', 'u')",
                [names],
            )
            constraints = cursor.fetchall()
        cursor.execute(
            "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index "
            "WHERE indrelid = ANY(%s::regclass[]) AND indexrelid <> ALL(%s::regclass[])"
            + (" AND NOT indisunique" if keep_unique else ""),
            [names, [name for _, name, _ in constraints]],
        )
        indexes = cursor.fetchall()
        for name, _ in indexes:
            cursor.execute(f"DROP INDEX {name}")
        for table, name, _ in constraints:
            cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')

    def build() -> None:
        with connection.cursor() as cursor:
            # Index builds sort in this memory; the default 64 MB spills to disk at a
            # million rows.
            cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
            # A table with deferred foreign-key checks pending cannot be indexed: run them now.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            for table, name, definition in constraints:
                cursor.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
            for _, definition in indexes:
                cursor.execute(definition)
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")

    return build


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


def grown_by_a_tenth(model: type[models.Model], added: int) -> bool:
    """Whether `added` rows are at least a tenth of what the planner last counted in the
    table (PostgreSQL's pg_class.reltuples, read for free; a table never counted has
    -1): autovacuum's own threshold for analyzing a table again, below which plans made
    from the old statistics stay right. A later import of 200,000 games into ten million
    then skips an ANALYZE of 2 to 4 s (measured with the cores shared), a fifth of the
    import. Always on SQLite, whose `analyze` does nothing."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [model._meta.db_table]
        )
        (counted,) = cursor.fetchone()
    return added * 10 >= counted


@contextmanager
def encoded_stream(
    model: type[models.Model], columns: Sequence[str]
) -> Iterator[Callable[[bytes], None]]:
    """Like `insert_stream`, for rows already encoded by matches.services.binary_copy."""
    with (
        connection.cursor() as cursor,
        _binary_copy(cursor, model._meta.db_table, columns, None) as copy,
    ):
        copy.write(binary_copy.HEADER)
        yield copy.write
        copy.write(binary_copy.TRAILER)


def copy_arrays(
    model: type[models.Model],
    columns: Sequence[str],
    arrays: Sequence[Any],
    block: int = 1 << 20,
    order: np.ndarray | None = None,
) -> None:
    """Rows given as one array per column into a table (binary_copy.encode says how
    NULLs and times are given), encoded a block of rows at a time (PostgreSQL); with
    `order`, the rows at those positions, in that order."""
    types = column_types(model, columns)
    with encoded_stream(model, columns) as write:
        for start in range(0, len(arrays[0]), block):
            rows = slice(start, start + block) if order is None else order[start : start + block]
            write(binary_copy.encode(types, [array[rows] for array in arrays]))
