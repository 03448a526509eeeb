"""Reading a query a chunk ahead on a second connection, as a recompute reads its matches."""

from __future__ import annotations

import threading

import pytest
from django.db import transaction

from matches.models import Match
from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import file_import_source, store_replays
from matches.services.read_ahead import chunks_read_ahead
from tests import databases
from tests.factories import random_league

pytestmark = [
    databases.postgres_only("reading ahead is for PostgreSQL"),
    # The second connection sees committed rows only.
    pytest.mark.django_db(transaction=True),
]


def _ids():
    return Match.objects.order_by("played_at", "id").values_list("id", flat=True)


def test_chunks_hold_every_row_in_order():
    store_replays(source=file_import_source(), replays=iter_replay_payloads(random_league(45)))
    with transaction.atomic(), chunks_read_ahead(_ids(), 20, list) as chunks:
        read = list(chunks)
    assert [len(chunk) for chunk in read] == [20, 20, 5]
    assert [row[0] for chunk in read for row in chunk] == list(_ids())


def test_a_failure_on_the_reading_side_reaches_the_caller():
    store_replays(source=file_import_source(), replays=iter_replay_payloads(random_league(45)))
    first = _ids()[0]

    def convert(rows):  # fails on the second chunk
        if rows[0][0] != first:
            raise ValueError("bad row")
        return rows

    with (
        pytest.raises(ValueError, match="bad row"),
        transaction.atomic(),
        chunks_read_ahead(_ids(), 20, convert) as chunks,
    ):
        list(chunks)


def test_leaving_early_stops_the_reading_thread():
    store_replays(source=file_import_source(), replays=iter_replay_payloads(random_league(45)))
    before = threading.active_count()
    with transaction.atomic(), chunks_read_ahead(_ids(), 5, list) as chunks:
        next(iter(chunks))
    assert threading.active_count() == before
