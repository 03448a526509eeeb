"""Rivals: the head-to-head page and API (record, next game, sets), the players a rating
meets most on the profile and in the API, and per set what was expected of it."""

from __future__ import annotations

import html as html_module
import re

import pytest
from django.db.models import Q
from django.template.defaultfilters import floatformat

from matches.models import Match, MatchRating
from matches.replays.readers import iter_replay_payloads
from matches.selectors.calculator import Contender, win_forecast
from matches.selectors.match_history import match_sets
from matches.services.file_import import file_import_source
from matches.services.flags import set_player_flags
from matches.services.ingest import store_replays
from players.formatting import signed_text
from players.models import Player, Rating
from tests.factories import replay
from tests.fixtures.league import rate_replays

pytestmark = pytest.mark.django_db

A, B, C, H = (f"10000000000000000{n}" for n in (1, 2, 3, 4))
HEAD_TO_HEAD = f"/player/{A}/SO/vs/{B}"
API = f"/api/v1/players/{A}/SO/vs/{B}/"
# The page's queries: both players' ratings, the calibration (once for the sets, once in
# the calculator's forecast), the sets (two), the record.
HEAD_TO_HEAD_QUERIES = 7


def game(n: int, opponent: str, winner: int = 1, characters=("SO", "KY")) -> dict:
    return replay(n, A, opponent, winner=winner, characters=characters)


@pytest.fixture
def rivals(db) -> None:
    """A's Sol against B's Ky: won, lost, then a game against H (hidden from now on), won,
    then a game against C, then A's Ky against B's May, won; one game against B stays
    unrated and one rated game is made one that did not count."""
    rate_replays(
        [
            game(1, B),
            game(2, B, winner=2),
            game(3, H),
            game(4, B),
            game(5, C),
            game(6, B, characters=("KY", "MA")),
        ]
    )
    Player.objects.filter(id=H).update(hidden=True)
    store_replays(source=file_import_source(), replays=iter_replay_payloads([game(7, B, winner=2)]))
    fourth = Match.objects.get(source_replay_id=game(4, B)["id"])
    MatchRating.objects.filter(match=fourth).update(counted=False)


def between(player: str, opponent: str) -> Q:
    return Q(player_a_id=player, player_b_id=opponent) | Q(player_a_id=opponent, player_b_id=player)


def won_by(player: str) -> Q:
    return Q(player_a_id=player, winner=Match.Winner.A) | Q(
        player_b_id=player, winner=Match.Winner.B
    )


def test_the_record_counts_every_game_between_them_in_the_database(client, rivals):
    games = Match.objects.filter(between(A, B))
    wins = games.filter(won_by(A))
    counted = games.filter(rating__counted=True)
    uncounted = games.filter(rating__counted=False)
    pending = games.filter(rating__isnull=True)
    assert (games.count(), uncounted.count(), pending.count()) == (5, 1, 1)

    record = client.get(API).json()["record"]
    assert record["games"] == games.count()
    assert (record["wins"], record["losses"]) == (wins.count(), games.count() - wins.count())
    for name, part in (("counted", counted), ("uncounted", uncounted), ("pending", pending)):
        assert record[name] == {
            "wins": part.filter(won_by(A)).count(),
            "losses": part.exclude(won_by(A)).count(),
        }, name

    page = client.get(HEAD_TO_HEAD).content.decode()
    assert f"<strong>{wins.count()}\u2013{games.count() - wins.count()}</strong>" in page
    assert f"in {games.count()} games" in page
    rows = re.findall(r'<th scope="row">([^<]+) vs ([^<]+)</th>', page)
    assert rows == [("Sol", "Ky"), ("Ky", "May")]


def test_hidden_players_and_cheaters_have_no_head_to_head(
    client, rivals, queued_recomputes, django_capture_on_commit_callbacks
):
    assert client.get(f"/player/{A}/SO/vs/{H}").status_code == 404  # H is hidden
    assert client.get(f"/player/{H}/SO").status_code == 404  # like their profile
    assert client.get(f"/api/v1/players/{A}/SO/vs/{H}/").status_code == 404
    assert client.get(f"/player/{A}/SO/vs/{A}").status_code == 404
    both_ways = (HEAD_TO_HEAD, f"/player/{B}/KY/vs/{A}", API, f"/api/v1/players/{B}/KY/vs/{A}/")
    for flag in ("cheater", "hidden"):
        for path in both_ways:  # fill the cache
            assert client.get(path).status_code == 200, path
        with django_capture_on_commit_callbacks(execute=True):
            set_player_flags(Player.objects.get(id=B), **{flag: True}, by="test")
        for path in both_ways:
            assert client.get(path).status_code == 404, (flag, path)
        with django_capture_on_commit_callbacks(execute=True):
            set_player_flags(Player.objects.get(id=B), **{flag: False}, by="test")


def test_the_next_game_is_the_calculators_forecast_for_the_pair(client, rivals):
    sol = Rating.objects.select_related("player", "character").get(
        player_id=A, character__code="SO"
    )
    for code in ("KY", "MA"):
        theirs = Rating.objects.select_related("player", "character").get(
            player_id=B, character__code=code
        )
        forecast = win_forecast(Contender.of(sol), Contender.of(theirs))
        shown = client.get(API, {"character": code}).json()["next_game"]
        assert shown["a"]["win_probability"] == forecast.a.win_probability
        assert shown["b"]["win_probability"] == forecast.b.win_probability
        assert shown["a"]["after_win"]["change"] == forecast.a.after_win.change
        assert shown["b"]["character"]["code"] == code
        page = client.get(HEAD_TO_HEAD, {"character": code}).content.decode()
        assert f'<strong data-out="probability">{forecast.a.win_probability_text}' in page
    # By default, against the character they last played against this rating: Ky.
    assert client.get(API).json()["opponent_character"]["code"] == "KY"
    assert client.get(API, {"character": "SO"}).status_code == 404  # B has no Sol


def test_the_sets_are_the_profiles_sets_against_that_opponent(
    client, rivals, django_assert_max_num_queries
):
    sol = Rating.objects.select_related("player").get(player_id=A, character__code="SO")
    history = match_sets(sol).sets
    expected = [[g.match_id for g in s.games] for s in history if s.opponent.id == B]
    # The game against the hidden player is left out of the history: games 4, 2 and 1 are
    # one set there, and the unrated game 7 (after one against C) is a set of its own.
    assert [len(ids) for ids in expected] == [1, 3]
    sets = client.get(API).json()["sets"]
    assert [[g["id"] for g in s["games"]] for s in sets] == expected
    with django_assert_max_num_queries(HEAD_TO_HEAD_QUERIES):
        page = client.get(HEAD_TO_HEAD).content.decode()
    assert page.count('<tbody class="set">') == len(expected)
    assert page.count("game 3</td>") == 1  # the three-game set lists its games


def test_the_profile_lists_the_players_met_most_with_their_head_to_head(client, rivals):
    page = client.get(f"/player/{A}/SO").content.decode()
    section = page[page.index('id="rivals-heading"') : page.index('id="names-heading"')]
    row = r'<a href="([^"]+)"><bdi>([^<]+)</bdi></a></th>\s*<td class="num">(\d+)</td>\s*'
    links = re.findall(row + r'<td class="num">([^<]+)</td>', section)
    b_games = Match.objects.filter(between(A, B), character_a__code="SO")
    b_wins, b_count = b_games.filter(won_by(A)).count(), b_games.count()
    assert links == [
        (
            HEAD_TO_HEAD,
            "name-0002",
            str(b_games.count()),
            f"{b_wins}\u2013{b_games.count() - b_wins}",
        ),
        (f"/player/{A}/SO/vs/{C}", "name-0003", "1", "1\u20130"),
    ]
    api = client.get(f"/api/v1/players/{A}/SO/rivals/").json()
    assert [(o["player"]["id"], o["games"], o["wins"]) for o in api["opponents"]] == [
        (B, b_count, b_wins),
        (C, 1, 1),
    ]
    assert api["opponents"][0]["head_to_head"] == f"http://testserver{API}"
    assert client.get(api["opponents"][0]["head_to_head"]).status_code == 200


def test_each_set_says_what_was_expected_of_it(client, rivals):
    sol = Rating.objects.select_related("player").get(player_id=A, character__code="SO")
    page = html_module.unescape(client.get(f"/player/{A}/SO").content.decode())
    notes = re.findall(r'<span class="why-note">([^<]+)</span>', page)
    expected = []
    for game_set in match_sets(sol).sets:
        if game_set.change is None:
            continue  # pending: its chance is not known yet
        chances = sum(game.win_probability for game in game_set.games)
        note = f"expected {floatformat(chances, 1)} wins, won {game_set.wins}: "
        expected.append(note + signed_text(game_set.change))
    assert notes == expected
    assert len(notes) == 2 and any(game_set.uncounted for game_set in match_sets(sol).sets)
