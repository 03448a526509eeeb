"""Reads that see the database at one moment, so that the counts a page shows from several
queries agree with each other (a rating batch committing between two of them would make
"#12 of 2,409" and a table of 2,411 out of one page)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def one_moment() -> Iterator[None]:
    """A read-only transaction whose queries all see the database as of its first one
    (REPEATABLE READ). Inside a transaction already (a test's, a caller's), its reads are
    that transaction's, whose isolation cannot change after its first query."""
    outermost = not connection.in_atomic_block
    # No savepoint inside another transaction: there is nothing to roll back in a read.
    with transaction.atomic(savepoint=False):
        if outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield
