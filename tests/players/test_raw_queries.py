"""The players' hand-written queries give the rows of an ORM query of the same meaning,
on a league with hidden players, cheaters and unsettled ratings (players.rules)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import connection

from players import rules
from players.models import Character, Player, Rating
from players.selectors.rankings import (
    ranked_ratings,
    ranked_rows,
    ranked_rows_counted,
    rating_ranks,
)

pytestmark = pytest.mark.django_db


def ranked_by_orm(**conditions: object) -> list[tuple[str, int]]:
    """(player id, character id) of the ranked ratings meeting `conditions`, in ranking
    order: the rule joined to the player, as the raw queries never write it."""
    return list(
        Rating.objects.filter(rules.ranked(), **conditions)
        .order_by("-value", "id")
        .values_list("player_id", "character_id")
    )


def test_rating_ranks_count_the_ranked_ratings_ahead(flagged_league: datetime) -> None:
    order = ranked_by_orm()
    assert order, "the league ranks some ratings"
    for rating in Rating.objects.select_related("player"):
        ranks = rating_ranks(rating)
        key = (rating.player_id, rating.character_id)
        if key not in order:
            assert ranks is None, key
            continue
        within = ranked_by_orm(character_id=rating.character_id)
        assert (ranks.overall, ranks.character) == (order.index(key) + 1, within.index(key) + 1)
        assert (ranks.ranked, ranks.more_ranked) == (len(order), False)


def test_ranked_rows_are_the_ranked_ratings_in_order(flagged_league: datetime) -> None:
    since = flagged_league - timedelta(days=3)
    for character in [None, *Character.objects.filter(ratings__isnull=False).distinct()]:
        by_character = {} if character is None else {"character": character}
        for active_since in (None, since):
            by_time = {} if active_since is None else {"last_played_at__gte": active_since}
            expected = ranked_by_orm(**by_character, **by_time)
            ranking = ranked_ratings(character, active_since=active_since)
            rows, count = ranked_rows_counted(ranking, 0, 1000, bound=1000)
            assert [(row.player_id, row.character.id) for row in rows] == expected
            assert count == len(expected)
            assert ranked_rows(ranking, 2, 5) == rows[2:5]


def test_one_per_player_keeps_each_players_best_ranked_rating(flagged_league: datetime) -> None:
    best: dict[str, tuple[str, int]] = {}
    for player_id, character_id in ranked_by_orm():
        best.setdefault(player_id, (player_id, character_id))
    rows = ranked_rows(ranked_ratings(one_per_player=True), 0, 1000)
    assert [(row.player_id, row.character.id) for row in rows] == list(best.values())


def test_the_rules_as_querysets_and_as_predicates_agree(flagged_league: datetime, settings) -> None:
    settings.RANKED_MIN_OPPONENTS = 10
    # Some settled ratings of every kind of player short of confirmation, some just at it.
    for n, rating_id in enumerate(Rating.objects.order_by("id").values_list("id", flat=True)):
        Rating.objects.filter(id=rating_id).update(confirmations=(9, 10, 3)[n % 3])
    ranked = set(Rating.objects.filter(rules.ranked()).values_list("id", flat=True))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM players_rating r WHERE {rules.rankable_sql('r')} "
            f"AND r.player_id NOT IN ({rules.flagged_ids_sql()})",
            rules.sql_params(),
        )
        assert {row[0] for row in cursor.fetchall()} == ranked
    assert ranked and Rating.objects.filter(rules.settled()).exclude(id__in=ranked).exists()
    hidden = set(Player.objects.filter(rules.hidden()).values_list("id", flat=True))
    flagged = set(Player.objects.filter(rules.flagged()).values_list("id", flat=True))
    unrated = set(Player.objects.filter(rules.unrated()).values_list("id", flat=True))
    withdrawn = set(Player.objects.filter(rules.withdrawn()).values_list("id", flat=True))
    assert withdrawn and hidden > withdrawn and flagged > hidden and flagged > unrated > withdrawn
    for rating in Rating.objects.select_related("player"):
        player = rating.player
        spelled_out = (
            rating.deviation < settings.RATING_LOW_DEVIATION
            and rating.confirmations >= 10
            and not (player.hidden or player.cheater or player.private)
        )
        predicates = rules.is_rankable(
            rating.deviation, rating.confirmations
        ) and not rules.is_flagged(player)
        assert (rating.id in ranked) == spelled_out == predicates
        assert (
            player.id in hidden,
            player.id in flagged,
            player.id in unrated,
            player.id in withdrawn,
        ) == (
            player.hidden or player.private,
            player.hidden or player.cheater or player.private,
            player.hidden or player.cheater,
            player.hidden,
        )
        assert rules.is_hidden(player) == (player.id in hidden)
