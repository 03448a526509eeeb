"""Bulk writes that the ORM's bulk_create/bulk_update are too slow for.

Ingestion and rating write hundreds of thousands of rows a minute: the rows are
streamed with binary COPY, straight into the table or into a temporary table merged
with one statement.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from django.db import connection, models
from psycopg.copy import QueuedLibpqWriter

from matches.services import binary_copy

Row = Sequence[Any]
_temp_names = itertools.count()


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
        if not on_conflict:
            # Nothing can conflict: stream straight into the table.
            return _copy_rows(cursor, table, columns, _types(cursor, table, columns), rows)
        temp = _copy_to_temp(cursor, table, columns, rows)
        cursor.execute(
            f"INSERT INTO {table} ({column_list}) SELECT {column_list} FROM {temp} {on_conflict}"
        )
        written = cursor.rowcount
        cursor.execute(f"DROP TABLE {temp}")
        return written


def insert_and_record_new(
    model: type[models.Model],
    columns: Sequence[str],
    rows: Sequence[Row],
    on_conflict: str,
    *,
    returning: Sequence[str],
    record: type[models.Model],
    record_columns: Sequence[str],
    key: Sequence[str],
) -> list[tuple]:
    """Like `insert`, and also write the `returning` columns of each row actually
    written into `record`'s `record_columns` (e.g. queue new matches), in one
    statement; returns the `key` columns of the rows that were new."""
    table, record_table = model._meta.db_table, record._meta.db_table
    column_list = ", ".join(columns)
    returned = ", ".join(returning)
    recorded = ", ".join(record_columns)
    keys = ", ".join(key)
    every = ", ".join(dict.fromkeys([*returning, *key]))
    with connection.cursor() as cursor:
        temp = _copy_to_temp(cursor, table, columns, rows)
        cursor.execute(
            f"WITH new AS (INSERT INTO {table} ({column_list}) "
            f"SELECT {column_list} FROM {temp} {on_conflict} RETURNING {every}), "
            f"recorded AS (INSERT INTO {record_table} ({recorded}) SELECT {returned} FROM new) "
            f"SELECT {keys} FROM new"
        )
        written = cursor.fetchall()
        cursor.execute(f"DROP TABLE {temp}")
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


@contextmanager
def indexes_built_after(
    tables: Iterable[type[models.Model]], *, keep_unique: bool = False
) -> Iterator[None]:
    """Load tables without their indexes, and build the indexes once at the end.

    Filling a large table and then building each index in one sorted pass costs a
    fraction of keeping the indexes up to date row by row. Primary keys and unique
    constraints are dropped and re-added from their own definitions (a duplicate loaded
    meanwhile fails the re-add, and with it the transaction), so only tables no foreign
    key points at may be passed; with `keep_unique` they stay, for loads that rely on
    them (ON CONFLICT) or tables others point at, and only the other indexes are set
    aside. Dropping an index locks its table until the commit. Must run inside the
    transaction that loads the tables.
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
    """Refresh the planner's statistics after a bulk load.

    Until autovacuum gets to them (if it runs at all), the planner would plan against
    the tables' old sizes and pick full scans for pages that should be index lookups.
    """
    with connection.cursor() as cursor:
        for model in tables:
            cursor.execute(f"ANALYZE {model._meta.db_table}")


def grown_by_a_tenth(model: type[models.Model], added: int) -> bool:
    """Whether `added` rows are at least a tenth of what the planner last counted in the
    table (PostgreSQL's pg_class.reltuples, read for free; a table never counted has
    -1): autovacuum's own threshold for analyzing a table again, below which plans made
    from the old statistics stay right. A later import of 200,000 games into ten million
    then skips an ANALYZE of 2 to 4 s (measured with the cores shared), a fifth of the
    import."""
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
    """A function that writes rows already encoded by matches.services.binary_copy, called
    many times: every call feeds one COPY that stays open until the block ends, so the
    database takes in each batch while the caller computes the next. Meanwhile this
    connection can run nothing else."""
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
    NULLs and times are given), encoded a block of rows at a time; with
    `order`, the rows at those positions, in that order."""
    types = column_types(model, columns)
    with encoded_stream(model, columns) as write:
        for start in range(0, len(arrays[0]), block):
            rows = slice(start, start + block) if order is None else order[start : start + block]
            write(binary_copy.encode(types, [array[rows] for array in arrays]))
