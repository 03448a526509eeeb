"""Reading on other connections than the caller's, in the caller's snapshot (PostgreSQL).

A recompute reads every match and writes a result for each. On one connection the two
take turns, and the database sits idle while Python rates. Here helper threads read on
connections of their own, inside a snapshot exported by the caller's transaction, so
they see exactly what the caller sees: a query read a chunk ahead while the caller's
connection stays free to stream the results (`chunks_read_ahead`), or the parts of one
read spread over the server's cores (`readers_in_this_snapshot`).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, TypeVar

import psycopg
from django.db import connection
from django.db.models import QuerySet
from psycopg import sql

from matches.services.bulk import plain_connection_params

Chunk = TypeVar("Chunk")

# Chunks read but not yet taken: enough to hide the database's latency, few enough
# to bound memory.
_CHUNKS_AHEAD = 2
_POLL_SECONDS = 0.5
_END = object()


def other_connections_see_this_transaction() -> bool:
    """Whether connections reading in this transaction's snapshot see what it does, asked
    by the code that opened the transaction and has written none of what they read: on
    PostgreSQL, when that transaction is the outermost one. Nested in another
    (savepoints mark one), it may hold uncommitted rows that no other connection sees."""
    return (
        connection.vendor == "postgresql"
        and connection.in_atomic_block
        and not connection.savepoint_ids
    )


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


@contextmanager
def chunks_read_ahead(
    queryset: QuerySet, chunk_size: int, convert: Callable[[list[tuple]], Chunk]
) -> Iterator[Iterator[Chunk]]:
    """The rows of a values_list `queryset`, `chunk_size` at a time, each list made into
    a chunk by `convert` on the helper thread. Must run inside a transaction."""
    query, params = queryset.query.sql_with_params()
    chunks: queue.Queue = queue.Queue(maxsize=_CHUNKS_AHEAD)
    stopped = threading.Event()

    def hand_over(item: Any) -> bool:
        while not stopped.is_set():
            try:
                chunks.put(item, timeout=_POLL_SECONDS)
                return True
            except queue.Full:
                continue
        return False

    def read(reader: psycopg.Connection) -> None:
        try:
            with reader.cursor(name="chunks_read_ahead") as cursor:
                cursor.execute(query, params)
                while rows := cursor.fetchmany(chunk_size):
                    if not hand_over(convert(rows)):
                        return
            hand_over(_END)
        except Exception as error:  # handed to the caller, who raises it
            hand_over(error)

    def taken() -> Iterator[Chunk]:
        while True:
            try:
                item = chunks.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if reader_thread.is_alive() or not chunks.empty():
                    continue
                raise RuntimeError("the reading thread stopped without an answer") from None
            if item is _END:
                return
            if isinstance(item, Exception):
                raise item
            yield item

    with readers_in_this_snapshot(1) as (reader,):
        reader_thread = threading.Thread(
            target=read, args=(reader,), name="chunks-read-ahead", daemon=True
        )
        reader_thread.start()
        try:
            yield taken()
        finally:
            stopped.set()
            reader_thread.join()
