"""Suspected alternate accounts through the real pipeline (docs/integrity.md): a planted
alternate account of a strong player is flagged for review as its games are rated, an
honest newcomer is not, and a recompute finds the same suspects."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from matches.models import IntegrityFlag
from matches.services.rating.recompute import recompute_all_ratings
from matches.simulation.league import LeagueSimulator
from players.models import Rating
from tests.fixtures.league import rate_replays

pytestmark = pytest.mark.django_db

START = datetime(2026, 1, 5, tzinfo=UTC)
PLAYERS, GAMES, DAYS = 300, 24_000, 60


def _flagged() -> set[str]:
    return set(IntegrityFlag.objects.filter(kind="alt").values_list("player_id", flat=True))


def test_a_planted_alternate_account_is_flagged_and_honest_newcomers_are_not():
    league = LeagueSimulator(PLAYERS, 11, START, rate=GAMES / (DAYS * 86400), alternates=2)
    replays = list(league.games(GAMES))
    ended_at = rate_replays(replays)
    planted = {alternate.player_id for alternate in league.alternates}
    newcomers = {player.id for player in league._players[:PLAYERS] if player.arrival_week > 0}

    flagged = _flagged()
    assert planted <= flagged
    assert not flagged & newcomers
    flag = IntegrityFlag.objects.filter(player_id__in=planted).first()
    assert flag.status == "open"
    assert flag.wins > flag.expected_wins and flag.games <= 30
    assert 0 < flag.probability < 1e-4
    # The state the test keeps is stored with the rating.
    rating = Rating.objects.get(player_id=flag.player_id, character_id=flag.character_id)
    assert (rating.surprise_games, rating.surprise_wins) == (flag.games, flag.wins)

    # The compiled recompute finds the same suspects from the same games.
    IntegrityFlag.objects.all().delete()
    recompute_all_ratings(now=ended_at)
    assert _flagged() == flagged
