"""Contract tests: characters, player search and detail, ratings, rankings."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from django.utils.timezone import now
from rest_framework.serializers import Serializer

from players.api.serializers import PlayerHitSerializer, RankingRowSerializer
from players.models import Character, Player, Rating
from players.seed_roster import SEED_ROSTER as ROSTER
from players.selectors.rankings import ranked_ratings, ranked_rows, ranked_rows_counted
from players.selectors.search import find_players
from tests.factories import PlayerFactory, RatingFactory
from tests.fixtures.api_league import ALICE, BOB, CAROL, DAVE, ERIN, ERIN_OLD_NAME, GHOST
from web.generation import bump_generation

# Numbers of the reference formulas (the one-chance model: tests/matches/test_one_chance.py).
pytestmark = pytest.mark.usefixtures("reference_formulas")


V1 = "/api/v1"


def rating_numbers(rating: Rating) -> dict:
    return {
        "value": rating.value,
        "deviation": rating.deviation,
        "display": f"{round(rating.value)} ±{math.floor(2 * rating.deviation)}",
    }


def test_characters_are_the_roster(api):
    response = api.get(f"{V1}/characters/")

    assert response.status_code == 200
    assert response.json() == {
        "results": [
            {"id": cid, "code": code, "name": name, "retired": False} for cid, code, name in ROSTER
        ]
    }


def test_search_finds_current_and_past_names_with_ratings(api):
    current = api.get(f"{V1}/players/", {"name": "erin"}).json()["results"]
    past = api.get(f"{V1}/players/", {"name": ERIN_OLD_NAME.upper()}).json()["results"]

    assert [hit["id"] for hit in current] == [ERIN.id]
    assert current[0]["matched_name"] == "Erin"
    assert current[0]["name"] == "Erin"
    assert [hit["id"] for hit in past] == [ERIN.id]
    assert past[0]["matched_name"] == ERIN_OLD_NAME
    rating = Rating.objects.get(player_id=ERIN.id)
    assert past[0]["ratings"] == [
        {
            "character": {"id": 3, "code": "AX", "name": "Axl"},
            "rating": rating_numbers(rating),
            "tier": "Bronze",
            "wins": rating.wins,
            "losses": rating.losses,
            "last_played_at": rating.last_played_at.isoformat().replace("+00:00", "Z"),
        }
    ]


def test_search_limits_and_validates(api):
    assert len(api.get(f"{V1}/players/", {"name": "aro", "limit": 2}).json()["results"]) == 1
    assert len(api.get(f"{V1}/players/", {"name": "ar", "limit": 2}).json()["results"]) == 0
    response = api.get(f"{V1}/players/", {"name": "", "limit": 0})

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["status"] == 400
    assert error["code"] == "invalid"
    assert set(error["fields"]) == {"name", "limit"}


def test_search_never_finds_hidden_players(api):
    assert api.get(f"{V1}/players/", {"name": "Ghost"}).json() == {
        "results": [],
        "more_match": False,
    }
    every_hit = api.get(f"{V1}/players/", {"name": "0", "limit": 50}).json()["results"]
    assert GHOST.id not in {hit["id"] for hit in every_hit}


def test_player_has_every_rating_and_past_names(api):
    erin = api.get(f"{V1}/players/{ERIN.id}/").json()
    alice = api.get(f"{V1}/players/{ALICE.id}/").json()

    assert [name["name"] for name in erin["past_names"]] == [ERIN_OLD_NAME]
    player = Player.objects.get(id=ALICE.id)
    assert alice["id"] == ALICE.id
    assert alice["name"] == ALICE.name
    assert alice["floor"] == player.floor
    assert alice["first_seen"] == player.first_seen.isoformat().replace("+00:00", "Z")
    assert (alice["supporter"], alice["cheater"]) == (False, False)
    assert alice["past_names"] == []
    played = Rating.objects.filter(player_id=ALICE.id)
    assert {r["character"]["code"] for r in alice["ratings"]} == {"SO", "KY"}
    games = [r["wins"] + r["losses"] for r in alice["ratings"]]
    assert games == sorted(games, reverse=True) == sorted((r.games for r in played), reverse=True)


@pytest.mark.parametrize("key", ["SO", "so", "0"])
def test_rating_by_code_in_any_case_or_id(api, key):
    response = api.get(f"{V1}/players/{ALICE.id}/{key}/")

    assert response.status_code == 200
    body = response.json()
    rating = Rating.objects.get(player_id=ALICE.id, character__code="SO")
    assert body["player"] == {"id": ALICE.id, "name": ALICE.name, "platform": "ps"}
    assert body["character"] == {"id": 0, "code": "SO", "name": "Sol"}
    assert body["rating"] == rating_numbers(rating)
    assert (body["wins"], body["losses"]) == (rating.wins, rating.losses)
    assert (body["global_rank"], body["character_rank"]) == (1, 1)
    assert body["peak"]["rating"]["value"] == rating.peak_value
    assert body["peak"]["at"] == rating.peak_at.isoformat().replace("+00:00", "Z")
    assert body["best_win"]["opponent"]["id"] == rating.best_win_opponent_id
    assert body["best_win"]["character"]["id"] == rating.best_win_character_id
    assert body["best_win"]["rating"]["value"] == rating.best_win_value


def test_unranked_rating_without_records_has_nulls(api):
    rating = RatingFactory(deviation=200.0, wins=1, losses=0)

    body = api.get(f"{V1}/players/{rating.player_id}/SO/").json()

    assert body["rating"]["display"] == "1500 ±400"
    assert (body["global_rank"], body["character_rank"]) == (None, None)
    assert (body["peak"], body["best_win"]) == (None, None)


def test_best_win_over_a_player_hidden_since_shows_no_opponent(api):
    hidden = PlayerFactory(hidden=True)
    rating = RatingFactory(
        best_win_opponent=hidden,
        best_win_character=Character.objects.get(code="KY"),
        best_win_value=1700.0,
        best_win_deviation=60.0,
        best_win_at=hidden.last_seen,
    )

    best_win = api.get(f"{V1}/players/{rating.player_id}/SO/").json()["best_win"]

    assert best_win["opponent"] is None
    assert best_win["rating"]["display"] == "1700 ±120"


@pytest.mark.parametrize(
    "path",
    [
        f"players/{GHOST.id}/",
        f"players/{GHOST.id}/SO/",
        f"players/{GHOST.id}/SO/history/",
        f"players/{GHOST.id}/SO/matches/",
        f"players/{GHOST.id}/SO/matchups/",
        "players/999/",
        f"players/{ALICE.id}/MA/",
        f"players/{ALICE.id}/XX/matchups/",
        f"players/{ALICE.id}/99/history/",
        "rankings/XX/",
    ],
)
def test_hidden_and_unknown_are_404_in_the_error_shape(api, path):
    response = api.get(f"{V1}/{path}")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (404, "not_found")
    assert error["detail"]


def test_rankings_overall_paged(api):
    ranked = ranked_ratings()
    first = api.get(f"{V1}/rankings/", {"page_size": 2}).json()
    second = api.get(f"{V1}/rankings/", {"page_size": 2, "page": 2}).json()

    assert first["count"] == ranked.count() == 5
    assert first["previous"] is None
    assert first["next"].endswith("/api/v1/rankings/?page=2&page_size=2")
    rows = first["results"] + second["results"]
    assert [row["rank"] for row in rows] == [1, 2, 3, 4]
    assert [row["player"]["id"] for row in rows] == [r.player_id for r in ranked[:4]]
    top = ranked[0]
    assert rows[0] == {
        "rank": 1,
        "player": {"id": top.player_id, "name": top.player.name, "platform": top.player.platform},
        "character": {"id": 0, "code": "SO", "name": "Sol"},
        "rating": rating_numbers(top),
        "tier": "Gold",
        "wins": top.wins,
        "losses": top.losses,
    }
    assert GHOST.id not in {row["player"]["id"] for row in rows}


def test_ranking_rows_are_written_as_their_declared_fields(api):
    """The rows' direct representation gives what the generic walk of the fields does."""
    rows = ranked_rows(ranked_ratings(), 0, 100)
    assert len(rows) == 5
    serializer = RankingRowSerializer()
    for row in rows:
        assert serializer.to_representation(row) == Serializer.to_representation(serializer, row)


def test_search_hits_are_written_as_their_declared_fields(api):
    """The hits' direct representation gives what the generic walk of the fields does:
    current and past names, a cheater, and a rating never played."""
    cheater = PlayerFactory(name="Zed the cheater", cheater=True)
    RatingFactory(player=cheater, last_played_at=None, value=2500.0)
    RatingFactory(player=cheater, character=Character.objects.get(code="KY"), value=900.0)
    hits = find_players("zed").hits + find_players(ERIN_OLD_NAME).hits
    assert {ERIN.id, cheater.id} <= {hit.player_id for hit in hits}
    assert any(hit.matched_past_name for hit in hits)
    serializer = PlayerHitSerializer()
    for hit in hits:
        assert serializer.to_representation(hit) == Serializer.to_representation(serializer, hit)


def test_rankings_count_stops_past_the_page_and_says_so(api, monkeypatch):
    # Five ranked ratings (one of them the ghost's, who is hidden, is not among them).
    monkeypatch.setattr("players.api.rankings.RANKINGS_COUNTED", 2)
    first = api.get(f"{V1}/rankings/", {"page_size": 1}).json()
    assert (first["count"], first["count_exact"]) == (3, False)  # at least 3: 2 and one more
    assert first["next"].endswith("/api/v1/rankings/?page=2&page_size=1")
    fourth = api.get(f"{V1}/rankings/", {"page_size": 1, "page": 4}).json()
    assert (fourth["count"], fourth["count_exact"]) == (5, False)
    assert [row["rank"] for row in fourth["results"]] == [4]
    last = api.get(f"{V1}/rankings/", {"page_size": 1, "page": 5}).json()
    assert (last["count"], last["count_exact"], last["next"]) == (5, True, None)
    assert api.get(f"{V1}/rankings/", {"page_size": 1, "page": 6}).status_code == 404
    whole = api.get(f"{V1}/rankings/").json()
    assert (whole["count"], whole["count_exact"]) == (5, True)


def test_rows_read_with_their_count_are_the_rows_and_the_bounded_count(api):
    ranked = ranked_ratings()
    assert ranked_rows_counted(ranked, 1, 3, 10) == (ranked_rows(ranked, 1, 3), 5)
    assert ranked_rows_counted(ranked, 0, 1, 2) == (ranked_rows(ranked, 0, 1), 3)
    # Counted to the page's end (a deep API page): the page's own walk, one row further.
    assert ranked_rows_counted(ranked, 1, 3, 3) == (ranked_rows(ranked, 1, 3), 4)
    assert ranked_rows_counted(ranked, 3, 5, 5) == (ranked_rows(ranked, 3, 5), 5)
    assert ranked_rows_counted(ranked, 4, 6, 6) == (ranked_rows(ranked, 4, 6), 5)
    assert ranked_rows_counted(ranked, 5, 6, 6) == ([], 5)
    # A page past the end: counted apart, up to the bound and one more.
    assert ranked_rows_counted(ranked, 5, 6, 2) == ([], 3)
    assert ranked_rows_counted(ranked, 5, 6, 10) == ([], 5)
    assert ranked_rows_counted(
        ranked_ratings(active_since=now() + timedelta(days=1)), 0, 1, 10
    ) == (
        [],
        0,
    )


def test_a_ranking_page_and_its_count_are_one_query(api, django_assert_num_queries, monkeypatch):
    with django_assert_num_queries(1):
        body = api.get(f"{V1}/rankings/so/", {"page_size": 1, "page": 2}).json()
    assert (body["count"], [row["rank"] for row in body["results"]]) == (2, [2])
    monkeypatch.setattr("players.api.rankings.RANKINGS_COUNTED", 1)  # counted to the page
    with django_assert_num_queries(1) as walks:
        body = api.get(f"{V1}/rankings/", {"page_size": 1, "page": 2}).json()
    assert "COUNT(" not in walks.captured_queries[0]["sql"]  # the page's walk counts: one walk
    assert (body["count"], body["count_exact"], [row["rank"] for row in body["results"]]) == (
        3,
        False,
        [2],
    )


def test_the_last_page_is_read_apart_from_the_count(api):
    last = api.get(f"{V1}/rankings/", {"page_size": 2, "page": "last"}).json()
    assert [row["rank"] for row in last["results"]] == [5]
    assert [row["player"]["id"] for row in last["results"]] == [ranked_ratings()[4].player_id]


def test_rankings_of_a_character_number_within_it(api):
    body = api.get(f"{V1}/rankings/so/").json()

    ranked = ranked_ratings(Character.objects.get(code="SO"))
    assert body["count"] == ranked.count()
    assert [row["rank"] for row in body["results"]] == list(range(1, ranked.count() + 1))
    assert {row["character"]["code"] for row in body["results"]} == {"SO"}
    assert GHOST.id not in {row["player"]["id"] for row in body["results"]}
    assert BOB.id not in {row["player"]["id"] for row in body["results"]}


@pytest.mark.parametrize(
    ("query", "status"),
    [({"page": 99}, 404), ({"page": 0}, 404), ({"page_size": 0}, 400), ({"page_size": "x"}, 400)],
)
def test_rankings_reject_bad_pages(api, query, status):
    response = api.get(f"{V1}/rankings/", query)

    assert response.status_code == status
    assert response.json()["error"]["status"] == status


# --- Rank tiers --------------------------------------------------------------------------

# The league's ratings by the default tiers (Silver from 1400, Gold from 1600).
DEFAULT_TIERS = {
    (ALICE.id, "SO"): "Gold",
    (ALICE.id, "KY"): None,  # too unsettled to be ranked: no tier, as on its page
    (BOB.id, "KY"): "Silver",
    (CAROL.id, "MA"): "Silver",
    (DAVE.id, "SO"): "Silver",
    (ERIN.id, "AX"): "Bronze",
}


def tiers_of(ratings: list[dict], player_id: str | None = None) -> dict[tuple[str, str], str]:
    return {
        (player_id or row["player"]["id"], row["character"]["code"]): row["tier"] for row in ratings
    }


def test_every_rating_has_its_tier_beside_it(api):
    rankings = api.get(f"{V1}/rankings/").json()["results"]
    sol_rankings = api.get(f"{V1}/rankings/SO/").json()["results"]
    alice = api.get(f"{V1}/players/{ALICE.id}/").json()
    alice_so = api.get(f"{V1}/players/{ALICE.id}/SO/").json()
    search = api.get(f"{V1}/players/", {"name": "kyo"}).json()["results"]

    assert tiers_of(rankings) == {
        key: tier
        for key, tier in DEFAULT_TIERS.items()
        if key != (ALICE.id, "KY")  # unranked
    }
    assert tiers_of(sol_rankings) == {(ALICE.id, "SO"): "Gold", (DAVE.id, "SO"): "Silver"}
    assert tiers_of(alice["ratings"], ALICE.id) == {
        (ALICE.id, "SO"): "Gold",
        (ALICE.id, "KY"): None,
    }
    assert alice_so["tier"] == "Gold"
    assert tiers_of(search[0]["ratings"], BOB.id) == {(BOB.id, "KY"): "Silver"}


def test_tiers_follow_the_settings(api, settings):
    settings.RATING_TIERS = ["0:Rookie", "1500:Pro", "1700:Legend"]
    bump_generation()

    rankings = api.get(f"{V1}/rankings/").json()["results"]
    alice = api.get(f"{V1}/players/{ALICE.id}/").json()

    assert tiers_of(rankings) == {
        (ALICE.id, "SO"): "Pro",
        (BOB.id, "KY"): "Pro",
        (CAROL.id, "MA"): "Rookie",
        (DAVE.id, "SO"): "Rookie",
        (ERIN.id, "AX"): "Rookie",
    }
    assert tiers_of(alice["ratings"], ALICE.id) == {
        (ALICE.id, "SO"): "Pro",
        (ALICE.id, "KY"): None,  # unranked
    }


def test_no_tier_beside_a_rating_too_unsettled_to_be_ranked(api, client, settings):
    """The API names no tier where the rating's page shows none: beside a ± too wide to
    be ranked; the same rating settled enough gets its tier back everywhere."""
    ky = Rating.objects.get(player_id=ALICE.id, character__code="KY")
    assert ky.deviation >= settings.RATING_LOW_DEVIATION  # the league leaves it unsettled

    def tiers() -> list:
        alice = api.get(f"{V1}/players/{ALICE.id}/").json()
        search = api.get(f"{V1}/players/", {"name": ALICE.name}).json()["results"]
        return [
            api.get(f"{V1}/players/{ALICE.id}/KY/").json()["tier"],
            api.get(f"{V1}/players/{ALICE.id}/KY/opponents/").json()["tier"],
            tiers_of(alice["ratings"], ALICE.id)[(ALICE.id, "KY")],
            tiers_of(search[0]["ratings"], ALICE.id)[(ALICE.id, "KY")],
        ]

    page = client.get(f"/player/{ALICE.id}/KY").content.decode()
    assert '<span class="tier">' not in page.split('<p class="big">')[1].split("</p>")[0]
    assert tiers() == [None] * 4
    settings.RATING_LOW_DEVIATION = ky.deviation + 1
    bump_generation()
    page = client.get(f"/player/{ALICE.id}/KY").content.decode()
    assert '<span class="tier">Gold</span>' in page.split('<p class="big">')[1].split("</p>")[0]
    assert tiers() == ["Gold"] * 4


def test_tiers_switched_off_are_null(api, settings):
    settings.RATING_TIERS = ["off"]
    bump_generation()

    rankings = api.get(f"{V1}/rankings/").json()["results"]
    rating = api.get(f"{V1}/players/{ALICE.id}/SO/").json()
    opponents = api.get(f"{V1}/players/{ALICE.id}/SO/opponents/").json()

    assert {row["tier"] for row in rankings} == {None}
    assert rating["tier"] is None
    assert opponents["tier"] is None
    assert {row["tier"] for row in opponents["opponents"]} == {None}
