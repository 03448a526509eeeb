"""Writer locks: one transaction at a time may hold each, across every process.

They are PostgreSQL's transaction-scoped advisory locks, released at commit or rollback.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

# Any fixed numbers shared by every process: the advisory locks' keys.
RATING_WRITER_LOCK = 4_711_001
INGEST_WRITER_LOCK = 4_711_002
FLAG_CHANGE_LOCK = 4_711_003
# The key space of the session locks a running IngestRun holds (the run's id is the other
# key): a process that dies lets go of its lock with its connection.
INGEST_RUN_LOCKS = 4_711_004
PATCH_CHANGE_LOCK = 4_711_005


def acquire_transaction_lock(key: int, *, wait: bool) -> bool:
    """Take the lock `key` for the current transaction; False if `wait` is off and it is held."""
    function = "pg_advisory_xact_lock" if wait else "pg_try_advisory_xact_lock"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s)", [key])
        return wait or bool(cursor.fetchone()[0])


def rated_through() -> datetime:
    """A time that every committed rating batch was stamped before (MatchRating.rated_at)
    and every later one will be stamped after: read under the rating writer's lock, which
    a batch holds while it stamps and commits (one clock: the writers' and this process's)."""
    with transaction.atomic():
        acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
        return timezone.now()
