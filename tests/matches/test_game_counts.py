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
from matches.services.statistics import GAMES_PER_DAY_WINDOW, _games_by_day, _patch_popularity
from players.models import Character, Player
from tests.factories import BASE_TIME, MatchFactory, PlayerFactory

pytestmark = pytest.mark.django_db

NOW = BASE_TIME + timedelta(days=100)


def random_game(rng: random.Random, players: list, characters: list, **fields: object) -> None:
    """A game between two of `players` on any of `characters`, with `fields` (a time, a
    version)."""
    a, b = rng.sample(players, 2)
    MatchFactory(
        player_a=a,
        player_b=b,
        character_a=rng.choice(characters),
        character_b=rng.choice(characters),
        **fields,
    )


def counted_afresh() -> tuple[dict, dict]:
    """What _games_by_day and _patch_popularity give, from every visible game."""
    first_day = (NOW - GAMES_PER_DAY_WINDOW).astimezone(UTC).date()
    by_day: dict = {}
    by_patch: dict = {}
    rows = (
        Match.objects.visible()
        .annotate(day=TruncDate("played_at", tzinfo=UTC))
        .values_list("day", "patch", "character_a", "character_b")
        .annotate(games=Count("id"))
        .order_by()
    )
    for day, patch, a, b, count in rows:
        shown = day if day >= first_day else None
        by_day[shown] = by_day.get(shown, 0) + count
        by_patch[patch, a, b] = by_patch.get((patch, a, b), 0) + count
    return by_day, _patch_popularity_of(by_patch)


def _patch_popularity_of(by_patch: dict) -> dict:
    """_patch_popularity's shares from (patch, X, Y) counts."""
    names = dict(Patch.objects.values_list("id", "name"))
    codes = dict(Character.objects.values_list("id", "code"))
    sides: dict = {}
    for (patch, a, b), count in by_patch.items():
        for key in ["all", *([names[patch]] if patch in names else [])]:
            for character in (a, b):
                sides.setdefault(key, {}).setdefault(codes[character], 0)
                sides[key][codes[character]] += count
    return {
        key: {
            "games": sum(counts.values()) // 2,
            "shares": {code: n / sum(counts.values()) for code, n in counts.items()},
        }
        for key, counts in sides.items()
    }


def kept() -> tuple[dict, dict]:
    return _games_by_day(NOW), _patch_popularity()


def test_the_kept_counts_are_a_count_over_every_visible_game():
    rng = random.Random(3)
    players = PlayerFactory.create_batch(6)
    characters = list(Character.objects.filter(code__in=["SO", "KY", "MA"]))
    Patch.objects.create(name="1.0", versions=[], live_at=BASE_TIME)
    Patch.objects.create(name="1.1", versions=[], live_at=BASE_TIME + timedelta(days=40))

    def batch(first_day: float, games: int = 80) -> None:
        for n in range(games):
            at = BASE_TIME + timedelta(days=first_day, minutes=517 * n + rng.random())
            random_game(rng, players, characters, played_at=at)

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
    assert set(kept()[1]) == {"all", *Patch.objects.values_list("name", flat=True)}
