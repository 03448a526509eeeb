"""Top 100 overall and per character: ranked ratings only, in rank order, bounded queries."""

from __future__ import annotations

import re

import pytest

from matches.models import SiteStatistic
from players.models import Character, Player, Rating
from tests.fixtures.pages import QUERY_LIMIT

pytestmark = pytest.mark.django_db


def profile_links(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<th scope="row"><a href="/player/(\d+)/([A-Z]{2})">', html)


def test_overall_top_lists_ranked_ratings_by_global_rank(
    client, league, django_assert_max_num_queries
):
    with django_assert_max_num_queries(QUERY_LIMIT):
        html = client.get("/").content.decode()
    ranked = list(
        Rating.objects.filter(global_rank__isnull=False)
        .order_by("global_rank")
        .values_list("player_id", "character__code")[:100]
    )
    assert len(ranked) > 30
    assert profile_links(html) == ranked
    assert all(r.deviation < 75 for r in Rating.objects.filter(global_rank__isnull=False))
    best = Rating.objects.get(global_rank=1)
    assert f"{best.value:.0f} ±{2 * best.deviation:.0f}" in html
    refreshed = SiteStatistic.objects.get(key="ranks_refreshed_at").data["at"]
    assert f'datetime="{refreshed[:19]}' in html


def test_one_row_per_player_keeps_each_players_best_rating(
    client, league, django_assert_max_num_queries
):
    with django_assert_max_num_queries(QUERY_LIMIT):
        html = client.get("/?per=player").content.decode()
    rows = profile_links(html)
    players = [player for player, _ in rows]
    assert len(players) == len(set(players)) > 20
    for player, code in rows:
        best = Rating.objects.filter(player_id=player, global_rank__isnull=False).order_by(
            "global_rank"
        )[0]
        assert best.character.code == code
    ranks = re.findall(r'<td class="num rank" data-sort="(\d+)">', html)
    assert ranks[: len(rows)] == [str(i) for i in range(1, len(rows) + 1)]
    several = Rating.objects.filter(global_rank__isnull=False).values("player_id")
    assert len(rows) < several.count()  # someone has two ranked characters in this league


def test_character_top_lists_that_character_by_character_rank(
    client, league, django_assert_max_num_queries
):
    character = Rating.objects.get(global_rank=1).character
    with django_assert_max_num_queries(QUERY_LIMIT):
        html = client.get(f"/top/{character.code.lower()}").content.decode()
    expected = list(
        Rating.objects.filter(character=character, character_rank__isnull=False)
        .order_by("character_rank")
        .values_list("player_id", "character__code")
    )
    assert profile_links(html) == expected
    assert f"Top 100 · {character.name}" in html


def test_hidden_players_leave_the_rankings_at_once(client, league):
    best = Rating.objects.get(global_rank=1)
    Player.objects.filter(id=best.player_id).update(hidden=True)
    html = client.get("/").content.decode()
    assert best.player_id not in html
    assert best.player.name not in html


def test_unknown_character_is_a_friendly_404(client, db):
    response = client.get("/top/ZZ")
    assert response.status_code == 404
    assert "There is no character with this code." in response.content.decode()
    assert 'id="search-name"' in response.content.decode()


def test_empty_site_says_ranks_are_not_computed(client, db):
    html = client.get("/").content.decode()
    assert "Ranks have not been computed yet." in html
    assert "No ranked ratings yet." in html
    assert Character.objects.count() == 27


def test_ranking_rows_escape_what_players_chose(client, league):
    """The rows are rendered by the Jinja2 partial (web.partials): a name is text, never markup."""
    best = Rating.objects.get(global_rank=1)
    Player.objects.filter(pk=best.player_id).update(name='<script>alert("x")</script>')

    html = client.get("/").content.decode()

    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
