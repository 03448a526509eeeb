"""Writer locks: one transaction at a time may hold each, across every process.

They are PostgreSQL's transaction-scoped advisory locks, released at commit or rollback.
"""

from __future__ import annotations

from django.db import connection

# Any fixed numbers shared by every process: the advisory locks' keys.
RATING_WRITER_LOCK = 4_711_001
INGEST_WRITER_LOCK = 4_711_002
FLAG_CHANGE_LOCK = 4_711_003
# The key space of the session locks a running IngestRun holds (the run's id is the other
# key): a process that dies lets go of its lock with its connection.
INGEST_RUN_LOCKS = 4_711_004


def acquire_transaction_lock(key: int, *, wait: bool) -> bool:
    """Take the lock `key` for the current transaction; False if `wait` is off and it is held."""
    function = "pg_advisory_xact_lock" if wait else "pg_try_advisory_xact_lock"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s)", [key])
        return wait or bool(cursor.fetchone()[0])
