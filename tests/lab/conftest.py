"""A small simulated league stored once per module, for the lab's database tests."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from django.db import transaction

from matches.replays.readers import iter_replay_payloads
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.simulation.league import LeagueSimulator
from players.services import ensure_roster

LEAGUE_PLAYERS = 300
LEAGUE_GAMES = 12_000
LEAGUE_DAYS = 30
LEAGUE_START = datetime(2026, 3, 2, tzinfo=UTC)


@pytest.fixture(scope="module")
def stored_league(django_db_setup, django_db_blocker) -> Iterator[LeagueSimulator]:
    """12,000 games among 300 players over 30 days, stored through the ingestion service.

    Storing them once per module keeps the tests quick: the data lives in a transaction
    that every test's own transaction nests in, rolled back when the module ends.
    """
    league = LeagueSimulator(
        LEAGUE_PLAYERS, seed=6, start=LEAGUE_START, rate=LEAGUE_GAMES / (LEAGUE_DAYS * 86400)
    )
    with django_db_blocker.unblock(), transaction.atomic():
        ensure_roster()
        result = store_replays(
            source=file_import_source(),
            replays=iter_replay_payloads(league.games(LEAGUE_GAMES)),
        )
        assert result.new == LEAGUE_GAMES
        yield league
        transaction.set_rollback(True)
