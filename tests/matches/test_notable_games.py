"""Notable games (`/recent` and `/api/v1/recent/`) against a computation in plain Python
over every stored row: the day's biggest upsets between settled ratings, its
highest-rated sets and the newest ranked players, flagged players and unsettled ratings
left out, and the page and the API showing them."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import timedelta

import pytest

from matches.models import Match, MatchRating
from matches.ratings.glicko import win_probability
from matches.services.refresh import refresh_derived_tables
from players.models import Character, Player, Rating
from tests.factories import BASE_TIME, MatchFactory, PlayerFactory, RatingFactory
from web.generation import bump_generation

pytestmark = pytest.mark.django_db

NOW = BASE_TIME + timedelta(minutes=30)
DAY_AGO = NOW - timedelta(days=1)
LOW_DEVIATION = 75.0


def make_league(seed: int) -> None:
    """Games in the day and before it, between settled and unsettled ratings, some of
    hidden players or cheaters; ratings of players first seen at many moments."""
    rng = random.Random(seed)
    roster = list(Character.objects.order_by("id")[:4])
    players = [
        PlayerFactory(
            hidden=n == 3,
            cheater=n == 5,
            first_seen=BASE_TIME - timedelta(days=rng.randint(0, 60), minutes=n),
        )
        for n in range(16)
    ]
    for player in players:
        for character in rng.sample(roster, 2):
            RatingFactory(
                player=player,
                character=character,
                value=rng.uniform(1300, 2000),
                deviation=rng.choice([50.0, 70.0, 80.0]),
            )
    for n in range(380):
        # The games among the first eight players only: the same two ratings meet often.
        a, b = sorted(rng.sample(players[:8], 2), key=lambda p: p.id)
        character_a, character_b = rng.choice(roster[:2]), rng.choice(roster[:2])
        played_at = NOW - timedelta(hours=26) + timedelta(minutes=4 * n + rng.randint(0, 3))
        match = MatchFactory(
            player_a=a,
            player_b=b,
            character_a=character_a,
            character_b=character_b,
            played_at=played_at,
            winner=rng.choice([Match.Winner.A, Match.Winner.B]),
        )
        value_a, value_b = rng.uniform(1300, 2100), rng.uniform(1300, 2100)
        deviation_a = rng.choice([40.0, 60.0, 74.9, 75.0, 90.0])
        deviation_b = rng.choice([40.0, 60.0, 74.9, 75.0, 90.0])
        MatchRating.objects.create(
            match=match,
            rated_at=played_at,
            counted=True,
            value_a=value_a,
            deviation_a=deviation_a,
            change_a=0.0,
            value_b=value_b,
            deviation_b=deviation_b,
            change_b=0.0,
            chance_a=win_probability(value_a, deviation_a, value_b, deviation_b),
        )


def candidate_games() -> list[MatchRating]:
    """The day's games between two settled ratings of players not flagged."""
    rows = MatchRating.objects.select_related("match__player_a", "match__player_b")
    return [
        r
        for r in rows
        if DAY_AGO <= r.match.played_at <= NOW
        and r.deviation_a < LOW_DEVIATION
        and r.deviation_b < LOW_DEVIATION
        and not any(p.hidden or p.cheater for p in (r.match.player_a, r.match.player_b))
    ]


def winner_chance(r: MatchRating) -> float:
    return r.chance_a if r.match.winner == Match.Winner.A else 1 - r.chance_a


def test_the_notable_games_equal_an_independent_computation(client):
    make_league(seed=6)
    refresh_derived_tables(now=NOW)
    answer = client.get("/api/v1/recent/").json()
    games = candidate_games()
    assert len(games) > 20, "the league gives every list more than it shows"

    upsets = sorted(games, key=lambda r: (winner_chance(r), -r.match.played_at.timestamp()))
    assert [u["match_id"] for u in answer["upsets"]] == [r.match_id for r in upsets[:10]]
    for shown, r in zip(answer["upsets"], upsets, strict=False):
        assert shown["chance"] == pytest.approx(winner_chance(r))
        a_won = r.match.winner == Match.Winner.A
        assert shown["winner"]["player_id"] == (
            r.match.player_a_id if a_won else r.match.player_b_id
        )
        assert shown["loser"]["value"] == pytest.approx(r.value_b if a_won else r.value_a)

    pairs: dict[tuple, list[MatchRating]] = defaultdict(list)
    for r in games:
        m = r.match
        pairs[(m.player_a_id, m.character_a_id, m.player_b_id, m.character_b_id)].append(r)
    sets = []
    for key, rows in pairs.items():
        if len(rows) >= 2:
            mean_a = sum(r.value_a for r in rows) / len(rows)
            mean_b = sum(r.value_b for r in rows) / len(rows)
            wins_a = sum(r.match.winner == Match.Winner.A for r in rows)
            sets.append(((mean_a + mean_b) / 2, key, len(rows), wins_a))
    sets.sort(key=lambda s: -s[0])
    assert len(sets) > 10
    shown_sets = [
        (s["mean_value"], (s["a"]["player_id"], s["b"]["player_id"]), s["games"], s["a"]["wins"])
        for s in answer["sets"]
    ]
    expected_sets = [(mean, (key[0], key[2]), n, wins) for mean, key, n, wins in sets[:10]]
    assert [s[1:] for s in shown_sets] == [s[1:] for s in expected_sets]
    assert [s[0] for s in shown_sets] == pytest.approx([s[0] for s in expected_sets])

    ranked = [
        r
        for r in Rating.objects.select_related("player", "character")
        if r.deviation < LOW_DEVIATION and not (r.player.hidden or r.player.cheater)
    ]
    best: dict[str, Rating] = {}
    for r in ranked:
        if r.player_id not in best or r.value > best[r.player_id].value:
            best[r.player_id] = r
    newest = sorted(best.values(), key=lambda r: r.player.first_seen, reverse=True)[:10]
    assert [(n["player_id"], n["character"]) for n in answer["newcomers"]] == [
        (r.player_id, r.character.code) for r in newest
    ]


def test_the_page_shows_the_notable_games_and_the_navigation_links_it(client):
    so, ky = Character.objects.get(code="SO"), Character.objects.get(code="KY")
    underdog, favourite = PlayerFactory(name="Underdog"), PlayerFactory(name="Favourite")
    RatingFactory(player=underdog, character=so, value=1500.0)
    RatingFactory(player=favourite, character=ky, value=1900.0)
    for minutes, winner in ((10, Match.Winner.A), (20, Match.Winner.B)):
        match = MatchFactory(
            player_a=underdog,
            player_b=favourite,
            played_at=NOW - timedelta(minutes=minutes),
            winner=winner,
        )
        MatchRating.objects.create(
            match=match,
            rated_at=match.played_at,
            counted=True,
            value_a=1500.0,
            deviation_a=60.0,
            change_a=0.0,
            value_b=1900.0,
            deviation_b=60.0,
            change_b=0.0,
            chance_a=0.09,
        )
    assert client.get("/api/v1/recent/").status_code == 404  # before the first refresh
    assert b"have not been computed yet" in client.get("/recent").content
    refresh_derived_tables(now=NOW)
    html = client.get("/recent").content.decode()
    assert '<a href="/recent">Recent</a>' in client.get("/stats").content.decode()
    # The upset first (9%), then the favourite's win (91%).
    first_upset = html.index("Biggest upsets")
    assert html.index("<bdi>Underdog</bdi>", first_upset) < html.index(
        "<bdi>Favourite</bdi>", first_upset
    )
    assert '<td class="num">9.0%</td>' in html
    # One set of two games, 1-1, at a mean of 1700.
    assert '<td class="num">1\u20131</td>' in html
    assert '<td class="num">1700</td>' in html
    answer = client.get("/api/v1/recent/").json()
    assert [u["chance"] for u in answer["upsets"]] == pytest.approx([0.09, 0.91])
    assert answer["sets"][0]["games"] == 2
    assert {n["name"] for n in answer["newcomers"]} == {"Underdog", "Favourite"}

    # Hidden since the refresh: gone from every list at once, before any recompute.
    Player.objects.filter(id=favourite.id).update(hidden=True)
    bump_generation()
    answer = client.get("/api/v1/recent/").json()
    assert (answer["upsets"], answer["sets"]) == ([], [])
    assert [n["name"] for n in answer["newcomers"]] == ["Underdog"]
    assert "Favourite" not in client.get("/recent").content.decode()
