"""The kept counts of visible games by day, patch and characters (matches.services
.game_counts), kept as the games are placed in their patches, against a count over every
game: after batches, games stored late into an earlier day and patch, a player hidden and
shown again, and every game placed again after a patch change."""

from __future__ import annotations

import random
from datetime import UTC, timedelta

import pytest
from django.db.models import Count
from django.db.models.functions import TruncDate

from matches.models import Match, Patch
from matches.services.patches import assign_patches
from matches.services.statistics import GAMES_PER_DAY_WINDOW, _visible_games
from players.models import Character, Player
from tests.factories import BASE_TIME, MatchFactory, PlayerFactory

pytestmark = pytest.mark.django_db

NOW = BASE_TIME + timedelta(days=100)


def counted_afresh() -> list[tuple]:
    """What _visible_games gives, from every visible game."""
    first_day = (NOW - GAMES_PER_DAY_WINDOW).astimezone(UTC).date()
    games: dict[tuple, int] = {}
    rows = (
        Match.objects.visible()
        .annotate(day=TruncDate("played_at", tzinfo=UTC))
        .values_list("day", "patch", "character_a", "character_b")
        .annotate(games=Count("id"))
        .order_by()
    )
    for day, patch, a, b, count in rows:
        key = (day if day >= first_day else None, patch, a, b)
        games[key] = games.get(key, 0) + count
    return sorted(games.items(), key=str)


def kept() -> list[tuple]:
    return sorted(
        (
            ((row["day"], row["patch"], row["character_a"], row["character_b"]), row["games"])
            for row in _visible_games(NOW)
        ),
        key=str,
    )


def test_the_kept_counts_are_a_count_over_every_visible_game():
    rng = random.Random(3)
    players = PlayerFactory.create_batch(6)
    characters = list(Character.objects.filter(code__in=["SO", "KY", "MA"]))
    Patch.objects.create(name="1.0", versions=[], live_at=BASE_TIME)
    Patch.objects.create(name="1.1", versions=[], live_at=BASE_TIME + timedelta(days=40))

    def batch(first_day: float, games: int = 80) -> None:
        for n in range(games):
            a, b = rng.sample(players, 2)
            MatchFactory(
                player_a=a,
                player_b=b,
                character_a=rng.choice(characters),
                character_b=rng.choice(characters),
                played_at=BASE_TIME + timedelta(days=first_day, minutes=517 * n + rng.random()),
            )

    def placed_and_counted() -> list[tuple]:
        assign_patches()
        assert kept() == counted_afresh()
        return kept()

    batch(-3)  # before every patch
    first = placed_and_counted()
    batch(20)  # days 20 to 48: both patches, inside the chart's days and before them
    assert placed_and_counted() != first
    batch(2, games=30)  # stored late, played in the first patch's days
    placed_and_counted()
    Player.objects.filter(pk=players[0].pk).update(hidden=True)
    hidden = placed_and_counted()
    Player.objects.filter(pk=players[0].pk).update(hidden=False)
    assert placed_and_counted() != hidden
    Patch.objects.filter(name="1.1").update(live_at=BASE_TIME + timedelta(days=30))
    assign_patches(every_game=True)  # what the admin's patch change queues
    assert kept() == counted_afresh()
    assert {patch for (_, patch, *_), _ in kept()} == {
        None,
        *Patch.objects.values_list("id", flat=True),
    }
