"""Rankings overall, one per player and per character: ranked ratings only, in the order of
their values at the moment they are served, with ranks that are positions in that order."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from matches.api.serializers.profile import OPPONENTS_LIMIT
from matches.replays.readers import iter_replay_payloads
from matches.services.file_import import file_import_source
from matches.services.flags import set_player_flags
from matches.services.ingest import store_replays
from matches.services.rating.incremental import rate_pending_matches
from matches.simulation.league import LeagueSimulator
from players.formatting import rating_text
from players.models import Character, Player, Rating
from players.selectors.rankings import rating_ranks, top_rated_keys
from players.views.rankings import player_url_maker, profile_url_maker
from tests.factories import PlayerFactory, RatingFactory
from tests.fixtures.league import DAYS, START, rate_replays
from tests.fixtures.pages import QUERY_LIMIT

pytestmark = pytest.mark.django_db

V1 = "/api/v1"


def profile_links(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<th scope="row"><a href="/player/(\d+)/([A-Z]{2})">', html)


def shown_ranks(html: str) -> list[int]:
    return [int(rank) for rank in re.findall(r'<td class="num rank" data-sort="(\d+)">', html)]


def shown_values(html: str) -> list[float]:
    return [float(v) for v in re.findall(r'<td class="num" data-sort="([\d.]+)">[^<]*±', html)]


def expected_order(character: Character | None = None) -> list[Rating]:
    """Ranked ratings by value then id, worked out in Python from every rating."""
    ratings = [
        r
        for r in Rating.objects.select_related("player", "character")
        if r.deviation < 75 and not r.player.hidden and not r.player.cheater
        if character is None or r.character_id == character.id
    ]
    return sorted(ratings, key=lambda r: (-r.value, r.id))


def keys(ratings: list[Rating]) -> list[tuple[str, str]]:
    return [(r.player_id, r.character.code) for r in ratings]


def assert_in_order(html: str, start: int = 1) -> None:
    values, ranks = shown_values(html), shown_ranks(html)
    assert len(values) == len(ranks) > 0
    assert values == sorted(values, reverse=True)
    assert ranks == list(range(start, start + len(ranks)))


def test_overall_lists_ranked_ratings_by_value(client, league, django_assert_max_num_queries):
    with django_assert_max_num_queries(QUERY_LIMIT):
        html = client.get("/").content.decode()
    expected = expected_order()
    assert len(expected) > 30
    assert profile_links(html) == keys(expected[:100])
    assert_in_order(html)
    assert rating_text(expected[0].value, expected[0].deviation) in html


def test_one_row_per_player_keeps_each_players_best_rating(
    client, league, django_assert_max_num_queries
):
    with django_assert_max_num_queries(QUERY_LIMIT):
        html = client.get("/?per=player").content.decode()
    best: dict[str, Rating] = {}
    for rating in expected_order():
        best.setdefault(rating.player_id, rating)
    assert profile_links(html) == keys(list(best.values())[:100])
    assert_in_order(html)
    assert len(best) < len(expected_order())  # someone has two ranked characters here


def test_character_list_is_that_characters_ranked_ratings(
    client, league, django_assert_max_num_queries
):
    character = expected_order()[0].character
    with django_assert_max_num_queries(QUERY_LIMIT):
        html = client.get(f"/top/{character.code.lower()}").content.decode()
    assert profile_links(html) == keys(expected_order(character)[:100])
    assert_in_order(html)
    assert f"Rankings · {character.name}" in html


def test_api_lists_match_the_pages(client, league):
    rows = client.get(f"{V1}/rankings/").json()["results"]
    assert [(r["player"]["id"], r["character"]["code"]) for r in rows] == keys(
        expected_order()[:100]
    )
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    character = expected_order()[0].character
    rows = client.get(f"{V1}/rankings/{character.code}/").json()["results"]
    assert [(r["player"]["id"], r["character"]["code"]) for r in rows] == keys(
        expected_order(character)
    )
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    best: dict[str, Rating] = {}
    for rating in expected_order():
        best.setdefault(rating.player_id, rating)
    per_player = client.get(f"{V1}/rankings/", {"per": "player"}).json()["results"]
    assert [(r["player"]["id"], r["character"]["code"]) for r in per_player] == keys(
        list(best.values())[:100]
    )


def _league_in_two_batches() -> tuple[list[dict], list[dict]]:
    games = list(LeagueSimulator(40, 11, START, rate=1600 / (DAYS * 86400)).games(1600))
    return games[:1000], games[1000:]


def test_lists_and_profiles_stay_in_order_as_batches_are_rated(client):
    """Ratings move with each batch, with no refresh between: every read is in order."""
    first, second = _league_in_two_batches()
    rate_replays(first)
    before_html = client.get("/").content.decode()
    assert_in_order(before_html)
    before = profile_links(before_html)
    assert before == keys(expected_order()[:100])

    store_replays(source=file_import_source(), replays=iter_replay_payloads(second))
    rate_pending_matches()

    html = client.get("/").content.decode()  # the rating service bumped the generation
    assert_in_order(html)
    after = profile_links(html)
    assert after == keys(expected_order()[:100])
    assert after != before  # the second batch reordered the list
    for page in ("/?per=player", *(f"/top/{code}" for code in ("SO", "KY"))):
        assert_in_order(client.get(page).content.decode())
    api = client.get(f"{V1}/rankings/").json()["results"]
    assert [r["rank"] for r in api] == list(range(1, len(api) + 1))
    values = [r["rating"]["value"] for r in api]
    assert values == sorted(values, reverse=True)

    for position in (1, 2, len(after)):
        player_id, code = after[position - 1]
        character = Character.objects.get(code=code)
        in_character = keys(expected_order(character)).index((player_id, code)) + 1
        profile = client.get(f"/player/{player_id}/{code}").content.decode()
        assert f"#{position} overall · #{in_character} {character.name}" in profile
        body = client.get(f"{V1}/players/{player_id}/{code}/").json()
        assert (body["global_rank"], body["character_rank"]) == (position, in_character)


def test_ties_are_broken_by_rating_id_in_lists_and_profiles(client):
    tied = [RatingFactory(value=1700.0) for _ in range(3)]
    html = client.get("/").content.decode()
    assert profile_links(html) == [(r.player_id, "SO") for r in sorted(tied, key=lambda r: r.id)]
    last = max(tied, key=lambda r: r.id)
    assert "#3 overall · #3 Sol" in client.get(f"/player/{last.player_id}/SO").content.decode()


@pytest.mark.parametrize("per_rank", [1, 2, 1000])
def test_rating_ranks_are_positions_among_ties_and_flagged_ratings(monkeypatch, per_rank):
    """Ranks and the counted total, from the one query, against the order worked out in
    Python: ties at a value on both sides of a rating, flagged players' ratings among them
    (ahead and behind, of the same character and another) and a rating too wide to rank."""
    monkeypatch.setattr("players.selectors.rankings.RANKED_COUNTED_PER_RANK", per_rank)
    ky = Character.objects.get(code="KY")
    made = [
        RatingFactory(value=value, **({"character": ky} if on_ky else {}))
        for value, on_ky in [
            (1700.0, False), (1650.0, True), (1650.0, False), (1650.0, False), (1650.0, True),
            (1600.0, False), (1650.0, False), (1800.0, True), (1500.0, False), (1650.0, False),
        ]
    ]  # fmt: skip
    RatingFactory(value=1900.0, deviation=80.0)  # too wide: never ranked, never counted
    for n, flag in ((2, "cheater"), (4, "hidden"), (7, "cheater")):
        Player.objects.filter(id=made[n].player_id).update(**{flag: True})
    order = expected_order()
    assert len(order) == 7
    for rating in Rating.objects.select_related("player", "character"):
        ranks = rating_ranks(rating)
        if rating not in order:
            assert ranks is None
            continue
        overall = order.index(rating) + 1
        within = expected_order(rating.character).index(rating) + 1
        counted = per_rank * overall
        assert (ranks.overall, ranks.character) == (overall, within)
        assert (ranks.ranked, ranks.more_ranked) == (min(len(order), counted), len(order) > counted)


def test_pages_of_100_with_links(client):
    ratings = [RatingFactory(value=1000.0 + n) for n in range(230)]
    first = client.get("/").content.decode()
    assert len(shown_ranks(first)) == 100
    assert 'href="/?page=2" rel="next"' in first
    assert 'rel="prev"' not in first
    third = client.get("/?page=3").content.decode()
    assert_in_order(third, start=201)
    assert shown_values(third)[-1] == 1000.0
    assert 'href="/" rel="prev"' not in third and 'href="/?page=2" rel="prev"' in third
    assert 'rel="next"' not in third
    api = client.get(f"{V1}/rankings/", {"page": 3}).json()
    assert api["count"] == len(ratings)
    assert [r["rank"] for r in api["results"]] == list(range(201, 231))
    beyond = client.get("/?per=player&page=4").content.decode()
    assert shown_ranks(beyond) == []
    assert '<a href="/?per=player">First page</a>' in beyond
    assert client.get("/?page=0").status_code == 400
    assert client.get("/?page=x").status_code == 400


def test_active_filter_keeps_ratings_played_lately(client):
    now = timezone.now()
    recent = RatingFactory(value=1600.0, last_played_at=now - timedelta(days=3))
    RatingFactory(value=1900.0, last_played_at=now - timedelta(days=45))
    html = client.get("/?active=30").content.decode()
    assert profile_links(html) == [(recent.player_id, "SO")]
    assert shown_ranks(html) == [1]
    assert len(profile_links(client.get("/").content.decode())) == 2
    rows = client.get(f"{V1}/rankings/", {"active": 30}).json()["results"]
    assert [(r["player"]["id"], r["rank"]) for r in rows] == [(recent.player_id, 1)]
    assert client.get(f"{V1}/rankings/", {"active": 7}).status_code == 400
    assert client.get("/?active=7").status_code == 400


def test_supporters_are_marked_in_rows(client):
    supporter = RatingFactory(player=PlayerFactory(supporter=True), value=1700.0)
    RatingFactory(value=1600.0)
    html = client.get("/").content.decode()
    row = html.split(f"/player/{supporter.player_id}/SO")[1].split("</tr>")[0]
    star = '<span class="supporter" title="Supports the site" role="img" aria-label="Supporter">'
    assert f"{star}★</span>" in row
    assert html.count("★") == 1


@pytest.mark.parametrize("flag", ["hidden", "cheater"])
def test_a_flag_leaves_every_list_on_the_next_request(
    client, league, settings, flag, queued_recomputes, django_capture_on_commit_callbacks
):
    settings.FAIR_OPPONENT_DAYS = 3650
    best, second = expected_order()[:2]
    character = best.character
    name = best.player.name
    pages = ("/", "/?per=player", f"/top/{character.code}")
    apis = (f"{V1}/rankings/", f"{V1}/rankings/{character.code}/")
    # Its neighbour in value has it among its fairest opponents (checked before the flag).
    opponents = (
        f"{V1}/players/{second.player_id}/{second.character.code}/opponents/"
        f"?limit={OPPONENTS_LIMIT}"
    )
    for url in (*pages, *apis):  # fill the cache
        assert best.player_id in client.get(url).content.decode()
    assert best.player_id in client.get(opponents).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        set_player_flags(Player.objects.get(id=best.player_id), **{flag: True}, by="test")

    for url in (*pages, *apis):
        assert best.player_id not in client.get(url).content.decode(), url
    assert best.player_id not in client.get(opponents).content.decode()
    assert profile_links(client.get("/").content.decode())[0] == (
        second.player_id,
        second.character.code,
    )
    # Not the whole name: one exact current name goes straight to that player's page.
    search = client.get("/search", {"name": name[:-1]}).content.decode()
    api_search = client.get(f"{V1}/players/", {"name": name}).json()["results"]
    found = [hit for hit in api_search if hit["id"] == best.player_id]
    if flag == "hidden":
        assert best.player_id not in search and not found
        assert client.get(f"/player/{best.player_id}/{character.code}").status_code == 404
    else:
        assert "flagged for cheating" in search and found[0]["cheater"] is True
        profile = client.get(f"/player/{best.player_id}/{character.code}").content.decode()
        assert "They have no rating here and are not ranked." in profile
        rating = client.get(f"{V1}/players/{best.player_id}/{character.code}/").json()
        assert (rating["rating"], rating["global_rank"], rating["character_rank"]) == (
            None,
            None,
            None,
        )


def test_profile_says_a_wide_rating_is_unranked_with_its_width(client):
    rating = RatingFactory(deviation=80.4)
    html = client.get(f"/player/{rating.player_id}/SO").content.decode()
    # ±160.8 is shown rounded down, as every ± is: ±160.
    assert (
        "Unranked: too few games yet (±160 after 20 games, ranks need ± below 150): "
        "ranked in about 3 more games against settled players of your level."
    ) in html


def test_empty_site_says_there_are_no_games(client, db):
    html = client.get("/").content.decode()
    assert "No rating is ranked yet: no games yet." in html
    assert Character.objects.count() == 27


def test_empty_rankings_say_how_old_the_newest_game_is(client):
    now = timezone.now()
    RatingFactory(deviation=120.0, last_played_at=now - timedelta(days=140, hours=2))
    RatingFactory(deviation=90.0, last_played_at=now - timedelta(days=200))
    html = client.get("/").content.decode()
    assert (
        "No rating is ranked yet: the newest game is 140 days old, so the ± of every rating "
        "has grown past 150." in html
    )


def test_empty_rankings_say_when_ratings_need_more_games(client):
    RatingFactory(deviation=110.0, last_played_at=timezone.now())
    html = client.get("/").content.decode()
    assert "the narrowest ± is ±220, ranks need ± below 150" in html


def test_empty_rankings_say_when_only_flagged_players_are_narrow(client):
    RatingFactory(player=PlayerFactory(cheater=True), last_played_at=timezone.now())
    html = client.get("/").content.decode()
    assert "every rating with a narrow ± belongs to a hidden player or a cheater" in html


def test_empty_active_rankings_say_so(client, league):
    html = client.get("/?active=30").content.decode()  # the league ended weeks ago
    assert "No ranked rating was played in the last 30 days." in html


def test_top_rated_keys_are_character_ranks(league):
    top = top_rated_keys(3)
    for character in Character.objects.all():
        expected = expected_order(character)[:3]
        assert {key: rank for key, rank in top.items() if key[1] == character.id} == {
            (r.player_id, r.character_id): n for n, r in enumerate(expected, start=1)
        }
    assert len(top) > 3


def test_unknown_character_is_a_friendly_404(client, db):
    response = client.get("/top/ZZ")
    assert response.status_code == 404
    assert "There is no character with this code." in response.content.decode()
    assert 'id="search-name"' in response.content.decode()


def test_ranking_rows_escape_what_players_chose(client, league):
    """The rows are rendered by the Jinja2 partial (web.partials): a name is text, never markup."""
    best = expected_order()[0]
    Player.objects.filter(pk=best.player_id).update(name='<script>alert("x")</script>')

    html = client.get("/").content.decode()

    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html


def test_ranking_rows_escape_configured_tier_names(client, league, settings):
    """Only the texts a row's view makes of numbers are placed unescaped by the partial."""
    settings.RATING_TIERS = ['0:<i class="x">Low</i>']

    html = client.get("/").content.decode()

    assert '<i class="x">' not in html
    assert '<span class="tier">&lt;i class=&#34;x&#34;&gt;Low&lt;/i&gt;</span>' in html


def test_row_urls_are_the_urls_reverse_makes(db):
    url = profile_url_maker()
    assert url("123456789", "SO") == reverse("profile", args=["123456789", "SO"])
    assert url("123456789", "so") == reverse("profile", args=["123456789", "so"])
    assert player_url_maker()("42") == reverse("player", args=["42"])
    # What no converter takes is quoted as reverse() quotes a path.
    assert url("1 2", "Ü?") == "/player/1%202/%C3%9C%3F"
