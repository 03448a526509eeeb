"""Issue 35, item 5: `rate_matches` run by hand waits for a writer holding the lock."""

from __future__ import annotations

import io
import threading
import time

import pytest
from django.core.management import call_command
from django.db import connections, transaction

from matches.models import PendingMatch
from matches.replays.readers import iter_replay_payloads
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock
from tests.factories import replay


def hold_the_rating_lock(seconds: float, held: threading.Event) -> None:
    try:
        with transaction.atomic():
            acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
            held.set()
            time.sleep(seconds)
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_rate_matches_waits_for_a_writer_holding_the_lock():
    """The audit: rate_matches stopped after one batch while a refresh held the lock,
    leaving 95,000 of 100,000 games pending without a word."""
    store_replays(
        source=file_import_source(),
        replays=iter_replay_payloads([replay(n, "1", str(n + 1)) for n in range(1, 30)]),
    )
    held = threading.Event()
    holder = threading.Thread(target=hold_the_rating_lock, args=(1.5, held))
    holder.start()
    held.wait(10)
    try:
        call_command("rate_matches", batch_size=5, stdout=io.StringIO())
    finally:
        holder.join()

    assert not PendingMatch.objects.exists()
