"""Fixtures for the page tests: plain static files and a small simulated league."""

from __future__ import annotations

import pytest

from tests.players.league import SeededLeague, seed_league

# Enough for an N+1 query to show: a full-ish top 100, 50-game history pages, 27 matchups.
QUERY_LIMIT = 10
# The profile's "good matches" block (matches.services.opponents.fair_opponents) reads the
# rating and the nearest active ratings above and below it: three queries on top.
PROFILE_QUERY_LIMIT = QUERY_LIMIT + 3


@pytest.fixture
def league(db) -> SeededLeague:
    """3,000 rated games among 120 simulated players, with ranks and statistics."""
    return seed_league(players=120, games=3000)
