"""Search by current or past name: partial, case-insensitive, exact first, hidden never."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from players.formatting import rating_text
from players.models import Player, PlayerName
from players.selectors import search as search_selector
from players.selectors.search import find_players, search_players
from tests.factories import BASE_TIME, PlayerFactory, RatingFactory, replay
from tests.fixtures.league import rate_replays
from tests.fixtures.pages import QUERY_LIMIT

pytestmark = pytest.mark.django_db

A, B, C, D = (f"10000000000000000{i}" for i in range(1, 5))


@pytest.fixture
def named(db) -> None:
    """A was 'OldSolMain' and is now 'Sol'; B 'Solitaire'; C 'xsolx'; D 'Ky Kiske'."""
    rate_replays(
        [
            replay(1, A, B, names=("OldSolMain", "Solitaire")),
            replay(2, A, C, names=("Sol", "xsolx"), characters=("KY", "SO")),
            replay(3, B, D, names=("Solitaire", "Ky Kiske"), characters=("MA", "SO")),
        ]
    )


def result_ids(html: str) -> list[str]:
    return re.findall(r'<div class="result-name">\s*<a href="/player/(\d+)">', html)


def test_exact_name_first_then_partial_matches(named):
    ids = [hit.player_id for hit in search_players("sol")]
    assert ids[0] == A  # exact (case-insensitive) hit on the current name
    assert set(ids) == {A, B, C}
    assert D not in ids


def test_one_exact_current_name_goes_straight_to_the_player(client, named):
    response = client.get("/search?name=SOL")
    assert (response.status_code, response["Location"]) == (302, f"/player/{A}")


def test_two_players_of_the_exact_name_are_listed(client, named):
    Player.objects.filter(id=C).update(name="sOl")
    response = client.get("/search?name=sol")
    assert response.status_code == 200
    assert result_ids(response.content.decode())[:2] == [A, C]


def test_an_exact_past_name_is_listed_not_followed(client, named):
    response = client.get("/search?name=oldsolmain")
    assert response.status_code == 200
    assert result_ids(response.content.decode()) == [A]


def test_results_show_games_last_seen_and_supporters(client, named):
    Player.objects.filter(id=B).update(supporter=True)
    html = client.get("/search?name=soli").content.decode()
    b = Player.objects.get(id=B)
    # B played two rated games (one on each of two characters), last on b.last_seen.
    assert sum(r.games for r in b.ratings.all()) == 2
    seen = f'datetime="{b.last_seen:%Y-%m-%dT%H:%M:%S}Z" title="{b.last_seen:%Y-%m-%d %H:%M} UTC"'
    assert f"· 2 games ·\n          last seen <time {seen}" in html
    mark = '<span class="supporter" title="Supports the site" role="img" aria-label="Supporter">'
    assert f"{mark}★</span>" in html
    html = client.get("/search?name=xsol").content.decode()
    assert "1 game ·" in html
    assert "★" not in html


def test_past_names_are_found_and_labelled(client, named):
    html = client.get("/search?name=oldsol").content.decode()
    assert result_ids(html) == [A]
    assert "formerly <bdi>OldSolMain</bdi>" in html


def test_results_show_each_characters_rating(client, named):
    hits = search_players("Sol")
    a = next(hit for hit in hits if hit.player_id == A)
    assert sorted(r.character.code for r in a.ratings) == ["KY", "SO"]
    html = client.get("/search?name=So").content.decode()
    for rating in a.ratings:
        assert f'href="/player/{A}/{rating.character.code}"' in html
        assert rating_text(rating.value, rating.deviation) in html


def test_hidden_players_are_not_found_by_any_name(client, named):
    Player.objects.filter(id=A).update(hidden=True)
    assert A not in result_ids(client.get("/search?name=sol").content.decode())
    assert result_ids(client.get("/search?name=OldSolMain").content.decode()) == []


def test_empty_query_and_no_match(client, named):
    assert "Type a name" in client.get("/search").content.decode()
    assert "No player has, or has had" in client.get("/search?name=zzzz").content.decode()


def test_an_exact_past_name_comes_first_even_among_many_current_names(client, db):
    """With more than a page of names matching, an exact past name still comes first
    (and a past name merely containing the query is outranked)."""
    players = [f"2000000000000{i:05d}" for i in range(60)]
    replays = [
        replay(n, players[2 * n], players[2 * n + 1], names=(f"Solo{n}", f"xSol{n}"))
        for n in range(30)
    ]
    replays += [
        replay(100, A, B, names=("sol", "Solitude")),  # A is 'sol' for now...
        replay(101, A, B, names=("Ky Main", "Solitude")),  # ... then 'Ky Main'
        replay(102, C, D, names=("OldSoloist", "Ky Kiske")),
        replay(103, C, D, names=("Ky Fan", "Ky Kiske")),  # C was 'OldSoloist'
    ]
    rate_replays(replays)
    hits = search_players("SOL")
    assert len(hits) == 50
    assert (hits[0].player_id, hits[0].matched_name, hits[0].name) == (A, "sol", "Ky Main")
    assert all(not hit.matched_past_name for hit in hits[1:])
    assert C not in {hit.player_id for hit in hits}  # a partial past name, outranked
    # Then the names starting with it, shortest first, then those containing it.
    assert [hit.name for hit in hits[1:4]] == ["Solo0", "Solo1", "Solo2"]
    assert hits[31].name == "Solitude"
    assert hits[32].name.startswith("xSol")
    html = client.get("/search?name=SOL").content.decode()
    assert result_ids(html)[0] == A
    assert "formerly <bdi>sol</bdi>" in html
    assert "More names contain" in html


def test_search_is_bounded_on_many_players(client, league, django_assert_max_num_queries):
    with django_assert_max_num_queries(QUERY_LIMIT):
        html = client.get("/search?name=xX_").content.decode()
    assert len(result_ids(html)) == len(search_players("xX_")) >= 5


def test_one_and_two_character_searches_read_only_names_starting_with_them(db):
    """Issue 35: a fragment this short is in a large share of all names, and reading them
    cost seconds on a million players; a name starting with it is a walk of a btree."""
    rate_replays([replay(1, A, B, names=("Qjx", "xQjx")), replay(2, C, D, names=("Qa", "aQ"))])

    assert [hit.player_id for hit in search_players("qj")] == [A]
    assert [hit.player_id for hit in search_players("Q")] == [C, A]
    assert {hit.player_id for hit in search_players("qjx")} == {A, B}  # from three: anywhere


def test_every_spelling_of_a_search_is_one_cached_page(client, named):
    """Issue 35: trailing spaces, case and invisible characters made new cache entries."""
    pages = {
        client.get("/search", {"name": name}).content
        for name in ("solit", " Solit ", "SOLIT", "so lit", "sol\u200bit", "solit\t")
    }

    assert len(pages) == 1
    assert sum(":page:" in key for key in cache._cache) == 1


def test_hostile_names_are_escaped_and_isolated(client, db):
    script, rtl = "<script>alert(1)</script>", "\u202eevil"
    rate_replays([replay(1, A, B, names=(script, rtl), played_at=BASE_TIME + timedelta(hours=1))])
    html = (
        client.get("/search?name=<sc").content.decode()
        + client.get("/search?name=e").content.decode()
    )
    assert script not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # Isolated, and the override that would turn the page's text around is gone.
    assert "<bdi>evil</bdi>" in html
    assert "\u202e" not in html


def test_past_and_current_names_are_escaped_wherever_a_result_shows_them(client, db):
    """The partial places only the texts its view made of numbers and dates unescaped."""
    rate_replays(
        [
            replay(1, A, B, names=("<b>old</b>", "Bee")),
            replay(2, A, B, names=("<i>new</i>", "Bee"), played_at=BASE_TIME + timedelta(hours=1)),
        ]
    )
    html = client.get("/search?name=old").content.decode()
    assert "<b>" not in html
    assert "<i>" not in html
    assert "formerly <bdi>&lt;b&gt;old&lt;/b&gt;</bdi>" in html
    assert 'aria-label="Characters of &lt;i&gt;new&lt;/i&gt;"' in html


def test_a_search_can_leave_out_when_each_rating_was_last_played(named):
    full = find_players("sol").hits
    lean = find_players("sol", last_played=False).hits
    assert [hit.player_id for hit in lean] == [hit.player_id for hit in full]
    assert all(rating.last_played_at is not None for hit in full for rating in hit.ratings)
    assert [[r._replace(last_played_at=None) for r in hit.ratings] for hit in full] == [
        hit.ratings for hit in lean
    ]


def test_exact_then_prefix_then_containing_current_before_past(named):
    """'sol': A is it, B starts with it, C contains it; A's past 'OldSolMain' adds nothing."""
    assert [hit.player_id for hit in search_players("sol")] == [A, B, C]
    # A name that was 'Solid' starts with it: before a current name containing it.
    rate_replays(
        [
            replay(10, D, C, names=("Solid", "xsolx")),
            replay(11, D, C, names=("Ky Kiske", "xsolx")),
        ]
    )
    hits = search_players("soli")
    # 'Sol' is one letter short of it: only like it, so after both.
    assert [(hit.player_id, hit.matched_name) for hit in hits] == [
        (B, "Solitaire"),
        (D, "Solid"),
        (A, "Sol"),
    ]
    assert [hit.player_id for hit in search_players("sol")] == [A, B, D, C]


def test_a_query_in_more_names_than_one_search_reads_says_so(client, named):
    found = find_players("sol", limit=2)
    assert ([hit.player_id for hit in found.hits], found.more_match) == ([A, B], True)
    # A's past name starts with 'sol', which ranks A by it, above B's current name.
    found = find_players("olds", limit=2)
    assert [(hit.player_id, hit.matched_name) for hit in found.hits] == [(A, "OldSolMain")]
    # No name is or starts with 'ire': the shortest of the current names read comes first.
    found = find_players("ire", limit=1)
    assert ([hit.name for hit in found.hits], found.more_match) == (["Solitaire"], False)
    assert client.get("/api/v1/players/?name=sol&limit=2").json()["more_match"] is True


def test_a_query_in_few_names_shows_them_all(client, named):
    found = find_players("sol")
    assert not found.more_match
    assert {hit.player_id for hit in found.hits} == {A, B, C}
    assert "More names contain" not in client.get("/search?name=ol").content.decode()
    assert client.get("/api/v1/players/?name=ol").json()["more_match"] is False


def test_a_misspelt_or_spaced_name_finds_the_player_through_page_and_api(client, db):
    daisy = RatingFactory(player__name="TrapDaisy").player
    spaced = RatingFactory(player__name="Kara Ok").player
    html = client.get("/search?name=TrapDasy").content.decode()
    assert result_ids(html) == [daisy.id]
    # Found as like the query, not as containing it: the page says which.
    assert "a name containing “<bdi>trapdasy</bdi>”. These are the names most like it." in html
    assert "with names most like it" not in client.get("/search?name=trapd").content.decode()
    # The query is printed in that line as text, never as markup.
    hostile = client.get("/search", {"name": "TrapDasy<i>"}).content.decode()
    assert result_ids(hostile) == [daisy.id]
    assert "“<bdi>trapdasy&lt;i&gt;</bdi>”. These are the names most like it." in hostile
    api = client.get("/api/v1/players/?name=TrapDasy").json()
    assert [hit["id"] for hit in api["results"]] == [daisy.id]
    # Spaces and case ignored, both ways: each is that player's very name.
    assert client.get("/search?name=trap daisy")["Location"] == f"/player/{daisy.id}"
    assert client.get("/search?name=KARAOK")["Location"] == f"/player/{spaced.id}"
    api = client.get("/api/v1/players/?name=Trap%20Daisy").json()
    assert [hit["id"] for hit in api["results"]] == [daisy.id]


def test_exact_and_prefix_matches_rank_before_containing_and_similar_ones(db):
    made = {
        name: RatingFactory(player__name=name).player.id
        for name in ("TrapDasy", "xTrapDaisy", "TrapDaisyFan", "Trap Daisy", "Unrelated")
    }
    found = [hit.player_id for hit in search_players("trapdaisy")]
    expected = ["Trap Daisy", "TrapDaisyFan", "xTrapDaisy", "TrapDasy"]
    assert found == [made[name] for name in expected]


def test_names_like_the_query_are_read_only_when_few_names_match_it(db):
    """A misspelling finds the name it misses; a fragment in many names shows those names
    alone, without reading the similar tier (its trigram recheck costs the most and grows
    with the names stored)."""
    similar = RatingFactory(player__name="Solitarie").player.id
    containing = [
        RatingFactory(player__name=f"Solitare{n:02}").player.id
        for n in range(search_selector.SIMILAR_BELOW - 1)
    ]
    found = [hit.player_id for hit in search_players("solitare")]
    assert found[:-1] == containing and found[-1] == similar
    containing.append(RatingFactory(player__name="Solitare99").player.id)
    with CaptureQueriesContext(connection) as queries:
        found = [hit.player_id for hit in search_players("solitare")]
    assert found == containing
    assert not any("similarity" in query["sql"] for query in queries.captured_queries)


def test_similar_names_are_read_through_their_index(db):
    """Every tier reads an index once walking the names would cost more. The stored keys
    (players/migrations/0024) cost the planner no more to read than a name: it walks a
    table of a thousand names and computes their trigrams (a few ms), and reads the
    trigram indexes from a few thousand (issue 35's 1M games: 20,000)."""
    players = Player.objects.bulk_create(
        PlayerFactory.build(name=f"Filler{n}") for n in range(3000)
    )
    PlayerName.objects.bulk_create(
        PlayerName(
            player=player, name=f"Old{player.name}", first_seen=BASE_TIME, last_seen=BASE_TIME
        )
        for player in players
    )
    with connection.cursor() as cursor:
        # As autovacuum leaves them: the names in the trigram indexes, not in their pending
        # lists (which the planner cannot see into), and the keys' statistics gathered.
        cursor.execute(
            "SELECT gin_clean_pending_list('player_name_key_trgm'), "
            "gin_clean_pending_list('playername_name_key_trgm')"
        )
        cursor.execute("ANALYZE players_player")
        cursor.execute("ANALYZE players_playername")
    with CaptureQueriesContext(connection) as queries:
        search_players("TrapDasy")
    with connection.cursor() as cursor:
        names = next(q["sql"] for q in queries.captured_queries if "UNION" in q["sql"])
        # Sent after its time limit, in one message (web.timeouts.fetch_within).
        limit, names = names.split("; ", 1)
        assert limit.startswith("SET LOCAL statement_timeout")
        cursor.execute("EXPLAIN " + names)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Seq Scan" not in plan
    assert "player_name_key_trgm" in plan and "playername_name_key_trgm" in plan


def test_a_search_builds_no_query_once_its_shape_is_compiled(named, monkeypatch):
    """Issue 35: building the tiers' union through the ORM cost more than reading it, on
    every search (150-280 ms under load). Its SQL is compiled once per shape (short or
    not, rows read); any other query of that shape only fills in its parameters, and
    finds what it would have found through a union built for it."""
    impostor = RatingFactory(player__name="\u202eniaM yK").player
    search_players("zz"), search_players("zzz")  # one of each shape, compiled

    def unbuilt(query: str) -> None:
        raise AssertionError("a search built its query again")

    monkeypatch.setattr(search_selector, "_tier_conditions", unbuilt)
    assert search_players("qj") == [] and search_players("Z") == []  # matching no name
    assert [hit.player_id for hit in search_players("ol")] == [A]  # a past name, OldSolMain
    assert [hit.player_id for hit in search_players("k y")] == [D, impostor.id]
    assert [hit.player_id for hit in search_players("s")] == [A, B]
    assert [hit.player_id for hit in search_players("ky main")] == [impostor.id]  # as shown
    assert [hit.player_id for hit in search_players("solitare")][:1] == [B]  # similar
    assert [hit.player_id for hit in search_players("sol")][:1] == [A]


def test_a_name_behind_a_right_to_left_override_is_found_by_how_it_showed(client, db):
    """Stored backwards behind U+202E, it showed as "Ky Main": that finds it, and its
    result shows it as stored, without the override, so no one takes it for Ky Main."""
    impostor = RatingFactory(player__name="\u202eniaM yK").player
    assert [hit.player_id for hit in search_players("Ky Main")] == [impostor.id]
    assert [hit.player_id for hit in search_players("ky ma")] == [impostor.id]
    # By what it shows now, too.
    assert [hit.player_id for hit in search_players("niaM yK")] == [impostor.id]
    # Listed, not followed: the page shows what it is.
    html = client.get("/search?name=kymain").content.decode()
    assert "<bdi>niaM yK</bdi>" in html and "\u202e" not in html
