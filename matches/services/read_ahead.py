"""Reading a long query a chunk ahead, on a second connection (PostgreSQL).

A recompute reads every match in order and writes a result for each. On one connection
the two take turns, and the database sits idle while Python rates. Here a helper thread
reads on its own connection, inside a snapshot exported by the caller's transaction,
so it sees exactly what the caller sees, while the caller's connection stays free to
stream the results.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


@contextmanager
def chunks_read_ahead(
    queryset: QuerySet, chunk_size: int, convert: Callable[[list[tuple]], Chunk]
) -> Iterator[Iterator[Chunk]]:
    """The rows of a values_list `queryset`, `chunk_size` at a time, each list made into
    a chunk by `convert` on the helper thread. Must run inside a transaction."""
    query, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_export_snapshot()")
        (snapshot,) = cursor.fetchone()
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

    def read() -> None:
        try:
            with psycopg.connect(**plain_connection_params()) as reader:
                reader.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
                reader.read_only = True
                reader.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)))
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

    reader_thread = threading.Thread(target=read, name="chunks-read-ahead", daemon=True)
    reader_thread.start()
    try:
        yield taken()
    finally:
        stopped.set()
        reader_thread.join()
