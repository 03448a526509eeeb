"""Reading on other connections than the caller's, in the caller's snapshot.

A recompute reads every match as arrays. The server's part of that read (hashing
player ids, aggregating columns) takes a core a query; here the parts of one read are
spread over connections of their own, inside a snapshot exported by the caller's
transaction, so they see exactly what the caller sees (`readers_in_this_snapshot`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import psycopg
from django.db import connection
from psycopg import sql

from matches.services.bulk import plain_connection_params


def other_connections_see_this_transaction() -> bool:
    """Whether connections reading in this transaction's snapshot see what it does, asked
    by the code that opened the transaction and has written none of what they read:
    when that transaction is the outermost one. Nested in another (savepoints mark one),
    it may hold uncommitted rows that no other connection sees."""
    return connection.in_atomic_block and not connection.savepoint_ids


@contextmanager
def readers_in_this_snapshot(count: int) -> Iterator[list[psycopg.Connection]]:
    """`count` read-only connections that see exactly what this transaction sees (its
    exported snapshot, without its own uncommitted writes), each for one thread at a time.
    Must run inside a transaction."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_export_snapshot()")
        (snapshot,) = cursor.fetchone()
    with ExitStack() as opened:
        readers = []
        for _ in range(count):
            reader = opened.enter_context(psycopg.connect(**plain_connection_params()))
            reader.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            reader.read_only = True
            reader.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)))
            readers.append(reader)
        yield readers
