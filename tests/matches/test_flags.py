"""Players' flags through matches.services.flags: recorded, shown on the next request, and
every rating recomputed without the flagged player's games by one queued task per burst,
never inside the operator's request."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from matches.models import CharacterMatchup, Match, MatchRating, PlayerFlagChange
from matches.selectors.match_history import match_sets
from matches.services.character_matchups import rebuild_character_matchups
from matches.services.flags import (
    QUEUED_RECOMPUTE_LOST_AFTER,
    RECOMPUTE_TASK,
    set_player_flags,
)
from matches.services.rating.recompute import recompute_all_ratings
from matches.services.rating.storage import MATCH_RATING_COLUMNS, RATING_STATE_COLUMNS
from matches.tasks import recompute_after_flag_changes as recompute_task
from players.models import Player, PlayerMatchup, Rating, RatingSnapshot
from tests.factories import PlayerFactory
from tests.fixtures.league import END, seed_league
from tests.matches.test_character_matchups import character_matchup_rows, counted_game
from web.generation import current_generation

pytestmark = pytest.mark.django_db


def game_cell_title(client) -> str:
    html = client.get("/matchups").content.decode()
    start = html.index('title="Sol vs Ky\n')
    return html[start : html.index('"', start + 7)]


@pytest.fixture
def cheat_and_others(settings) -> Player:
    """Sol beats Ky 3-3 and loses 6 games to a player about to be flagged; matchups built.
    Character matchups read games between settled ratings only (issue 35): here every
    rating counts as settled, so that the recompute's new ratings keep their games in."""
    settings.RATING_LOW_DEVIATION = settings.RATING_INITIAL_DEVIATION + 1
    sol, ky, cheat = PlayerFactory(), PlayerFactory(), PlayerFactory()
    for n in range(6):
        counted_game(sol, ky, 1500, 1500, a_won=n % 2 == 0)
        counted_game(sol, cheat, 1500, 1500, a_won=False, characters=("SO", "KY"))
    rebuild_character_matchups()
    return cheat


def test_the_task_is_the_one_the_service_queues():
    assert recompute_task.name == RECOMPUTE_TASK


def test_a_flag_shows_at_once_and_the_matchups_follow_when_the_task_has_run(
    client, cheat_and_others, queued_recomputes, django_capture_on_commit_callbacks
):
    cheat = cheat_and_others
    assert "12 games, 3\u20139" in game_cell_title(client)
    before = current_generation()

    with django_capture_on_commit_callbacks(execute=True):
        assert set_player_flags(cheat, cheater=True, by="test") == {"cheater"}
    assert current_generation() > before  # lists, search, profiles, the API: next request
    assert Player.objects.get(pk=cheat.pk).cheater and cheat.cheater
    assert len(queued_recomputes) == 1
    assert "12 games, 3\u20139" in game_cell_title(client)  # not rebuilt in the request

    assert recompute_task() == 12  # as the worker runs it: every stored game, rated again
    assert "6 games, 3\u20133" in game_cell_title(client)  # a cached page would say 12
    assert set(PlayerFlagChange.objects.values_list("recompute", flat=True)) == {"done"}


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_flags_queues_one_recompute(queued_recomputes):
    players = PlayerFactory.create_batch(4)
    # Each change commits on its own, as an operator's clicks or a shell loop do.
    set_player_flags(players[0], cheater=True, by="shell")
    set_player_flags(players[1], hidden=True, by="shell")
    set_player_flags(players[2], hidden=True, cheater=True, by="shell")
    assert len(queued_recomputes) == 1
    pending = PlayerFlagChange.objects.exclude(recompute="done")
    assert set(pending.values_list("recompute", flat=True)) == {"queued"}
    assert pending.count() == 4

    recompute_task()  # takes every waiting change
    assert not pending.exists()
    assert recompute_task() == 0  # delivered twice: nothing waits, nothing is recomputed
    set_player_flags(players[3], cheater=True, by="shell")
    assert len(queued_recomputes) == 2  # after the recompute started, a change needs another


def test_what_changes_nothing_in_the_matchups_queues_nothing(queued_recomputes, db):
    player = PlayerFactory()
    assert set_player_flags(player, supporter=True, by="admin") == {"supporter"}
    assert set_player_flags(player, hidden=False, cheater=False, by="admin") == set()  # as is
    assert set_player_flags(player, by="admin") == set()
    assert queued_recomputes == []
    change = PlayerFlagChange.objects.get()
    assert (change.player_id, change.flag, change.value, change.by) == (
        player.pk,
        "supporter",
        True,
        "admin",
    )
    assert change.recompute == ""


def test_a_recompute_queued_long_ago_and_never_started_is_queued_again(
    queued_recomputes, django_capture_on_commit_callbacks
):
    first, second = PlayerFactory(), PlayerFactory()
    with django_capture_on_commit_callbacks(execute=True):
        set_player_flags(first, cheater=True, by="test")
    PlayerFlagChange.objects.update(
        at=PlayerFlagChange.objects.get().at - 2 * QUEUED_RECOMPUTE_LOST_AFTER
    )
    with django_capture_on_commit_callbacks(execute=True):
        set_player_flags(second, cheater=True, by="test")
    assert len(queued_recomputes) == 2


def test_the_admin_records_the_flag_and_queues_the_recompute_without_running_it(
    admin_client,
    admin_user,
    cheat_and_others,
    queued_recomputes,
    django_assert_max_num_queries,
    django_capture_on_commit_callbacks,
):
    cheat = cheat_and_others
    matchups = list(CharacterMatchup.objects.values_list("wins", "losses"))
    form = {
        "name": cheat.name,
        "platform": cheat.platform,
        "floor": cheat.floor or "",
        "cheater": "on",
        "names-TOTAL_FORMS": "0",
        "names-INITIAL_FORMS": "0",
        "_save": "Save",
    }
    # The save, its log entry and the flag's record: no recompute (its reads of every game,
    # and a rewrite of every derived table would take dozens more).
    with django_capture_on_commit_callbacks(execute=True), django_assert_max_num_queries(25):
        response = admin_client.post(f"/admin/players/player/{cheat.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Player.objects.get(pk=cheat.pk).cheater
    assert len(queued_recomputes) == 1
    assert list(CharacterMatchup.objects.values_list("wins", "losses")) == matchups
    change = PlayerFlagChange.objects.get()
    assert (change.flag, change.value, change.by) == ("cheater", True, admin_user.username)

    recompute_task()
    # The cheater's 6 games dropped out: Sol-Ky 3-3, both ways.
    everyone = CharacterMatchup.objects.filter(bracket="all")
    assert sum(wins + losses for wins, losses in everyone.values_list("wins", "losses")) == 2 * 6


def test_the_admin_saves_other_fields_without_touching_the_flags(
    admin_client, queued_recomputes, django_capture_on_commit_callbacks
):
    player = PlayerFactory(cheater=True)
    before = current_generation()
    form = {
        "name": "Renamed",
        "platform": player.platform,
        "floor": player.floor or "",
        "cheater": "on",
        "names-TOTAL_FORMS": "0",
        "names-INITIAL_FORMS": "0",
        "_save": "Save",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/admin/players/player/{player.pk}/change/", form)
    assert response.status_code == 302
    player.refresh_from_db()
    assert (player.name, player.cheater) == ("Renamed", True)
    assert current_generation() > before
    assert queued_recomputes == [] and not PlayerFlagChange.objects.exists()


def test_flags_edited_together_in_the_admin_list_queue_one_recompute(
    admin_client, queued_recomputes, django_capture_on_commit_callbacks
):
    players = PlayerFactory.create_batch(3)
    form = {
        "form-TOTAL_FORMS": "3",
        "form-INITIAL_FORMS": "3",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "1000",
        "_save": "Save",
    }
    for n, player in enumerate(players):
        form[f"form-{n}-id"] = player.pk
        form[f"form-{n}-cheater" if n else f"form-{n}-hidden"] = "on"
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/admin/players/player/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Player.objects.filter(cheater=True).count() == 2
    assert Player.objects.filter(hidden=True).count() == 1
    assert PlayerFlagChange.objects.filter(recompute="queued").count() == 3
    assert len(queued_recomputes) == 1


# --- The acceptance test: a cheater flag undoes the cheating, and lifting it restores all.

LEAGUE_NOW = END + timedelta(days=2)  # every recompute decays ratings up to this moment


def derived_state(*, without: str | None = None) -> dict[str, list[tuple]]:
    """Every rating-derived row, keyed by what survives a recompute (player and character,
    not row ids); `without`: leave out that player's ratings and games."""
    ratings = Rating.objects.exclude(player_id=without)
    rating_key = ("rating__player_id", "rating__character_id")
    matches = MatchRating.objects.exclude(match__player_a_id=without).exclude(
        match__player_b_id=without
    )
    return {
        "ratings": sorted(ratings.values_list("player_id", "character_id", *RATING_STATE_COLUMNS)),
        "player_matchups": sorted(
            PlayerMatchup.objects.exclude(rating__player_id=without).values_list(
                *rating_key,
                "opponent_character_id",
                "wins",
                "losses",
                "expected_wins",
                "information",
            )
        ),
        "snapshots": sorted(
            RatingSnapshot.objects.exclude(rating__player_id=without).values_list(
                *rating_key, "day", "value", "deviation"
            )
        ),
        "character_matchups": character_matchup_rows(),
        "games": sorted(matches.values_list(*(c for c in MATCH_RATING_COLUMNS if c != "rated_at"))),
    }


def assert_same_but_rounding(state: dict[str, list[tuple]], expected: dict[str, list[tuple]]):
    """Every row alike: counts, ids, times and which games counted exactly, numbers to the
    last few bits. A game that does not count still decays its other side's ± to its
    moment (docs/rating-model.md), so a game against a flagged player splits one decay
    into two steps, which rounds differently from a game never played."""
    assert state.keys() == expected.keys()
    for table, rows in state.items():
        assert len(rows) == len(expected[table]), table
        for row, other in zip(rows, expected[table], strict=True):
            exact = [field for field in row if not isinstance(field, float)]
            assert exact == [field for field in other if not isinstance(field, float)], table
            numbers = [field for field in row if isinstance(field, float)]
            assert numbers == pytest.approx(
                [field for field in other if isinstance(field, float)], rel=1e-12
            ), table


class Rollback(Exception):
    pass


def state_had_they_never_played(player_id: str) -> dict[str, list[tuple]]:
    """The derived rows of a recompute of this database with `player_id`'s games deleted,
    read and then rolled back."""
    try:
        with transaction.atomic():
            Match.objects.filter(Q(player_a_id=player_id) | Q(player_b_id=player_id)).delete()
            recompute_all_ratings(now=LEAGUE_NOW)
            state = derived_state(without=player_id)
            raise Rollback
    except Rollback:
        return state


def admin_sets_cheater(client, player: Player, value: bool) -> None:
    form = {
        "name": player.name,
        "platform": player.platform,
        "floor": player.floor or "",
        "names-TOTAL_FORMS": "0",
        "names-INITIAL_FORMS": "0",
        "_save": "Save",
        **({"supporter": "on"} if player.supporter else {}),
        **({"cheater": "on"} if value else {}),
    }
    response = client.post(f"/admin/players/player/{player.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]


def test_a_cheater_flag_counts_their_games_for_nobody_and_lifting_it_restores_everything(
    admin_client, monkeypatch, queued_recomputes, django_capture_on_commit_callbacks
):
    seed_league(players=40, games=1500)
    monkeypatch.setattr(timezone, "now", lambda: LEAGUE_NOW)
    recompute_all_ratings()  # the league as a recompute leaves it, to compare recomputes with
    original = derived_state()
    # The player most often someone's best win: flagging them must change others' records.
    cheat = Player.objects.get(
        pk=Rating.objects.exclude(best_win_opponent=None)
        .values("best_win_opponent_id")
        .annotate(times=Count("id"))
        .order_by("-times", "best_win_opponent_id")[0]["best_win_opponent_id"]
    )
    expected = state_had_they_never_played(cheat.pk)
    assert derived_state() == original  # rolled back
    assert expected != derived_state(without=cheat.pk)  # they moved others' ratings

    with django_capture_on_commit_callbacks(execute=True):
        admin_sets_cheater(admin_client, cheat, True)
    assert len(queued_recomputes) == 1
    assert derived_state() == original  # the request recomputes nothing
    recompute_task()  # as the worker runs it
    assert_same_but_rounding(derived_state(without=cheat.pk), expected)
    assert not Rating.objects.filter(best_win_opponent=cheat).exists()
    assert not PlayerMatchup.objects.filter(rating__player=cheat).exists()

    with django_capture_on_commit_callbacks(execute=True):
        admin_sets_cheater(admin_client, Player.objects.get(pk=cheat.pk), False)
    assert len(queued_recomputes) == 2
    recompute_task()
    assert derived_state() == original


def test_a_cheaters_page_and_api_show_only_the_banner_and_their_games(
    client, cheat_and_others, queued_recomputes, django_capture_on_commit_callbacks
):
    cheat = cheat_and_others
    recompute_all_ratings()  # the fixture's games rated, as a league's are
    page, api = f"/player/{cheat.pk}/KY", f"/api/v1/players/{cheat.pk}/KY/"
    before = client.get(page).content.decode()
    assert "Rating summary" in before and "Marked as a cheater" not in before
    assert client.get(api).json()["rating"] is not None

    with django_capture_on_commit_callbacks(execute=True):
        set_player_flags(cheat, cheater=True, by="test")
    pending = client.get(page).content.decode()
    assert "Marked as a cheater: their games count for nobody. Every rating is being " in pending
    assert "until that is done, opponents keep what they won or lost against them" in pending

    recompute_task()
    html = client.get(page).content.decode()
    assert (
        "Marked as a cheater: their games count for nobody, and every rating has been "
        "recomputed without them. They have no rating here and are not ranked." in html
    )
    head, games = html.split('class="profile-head"')[1].split('id="matches-heading"')
    for shown in ("Rating summary", "Peak", "Best win", "Rating history", "\u00b1"):
        assert shown not in head, shown
    assert 'id="matchups-heading"' not in games
    assert games.count('<tbody class="set">') == 1 and "6\u20130" in games  # their 6 wins
    assert "\u2014" in games  # no rating of their own
    rating = client.get(api).json()
    for field in ("rating", "tier", "global_rank", "character_rank", "peak", "best_win"):
        assert rating[field] is None, field
    assert {r["rating"] for r in client.get(f"/api/v1/players/{cheat.pk}/").json()["ratings"]} == {
        None
    }
    assert client.get(f"{api}history/?daily=1").json()["points"] == []
    assert len(client.get(f"{api}matches/").json()["results"]) == 6

    # Lifted: until its recompute has run, the page says its numbers are from before.
    with django_capture_on_commit_callbacks(execute=True):
        set_player_flags(cheat, cheater=False, by="test")
    waiting = client.get(page).content.decode()
    assert "Marked as a cheater" not in waiting
    assert "every rating is being recomputed. Until that is done" in waiting
    recompute_task()
    done = client.get(page).content.decode()
    assert "being recomputed" not in done and "Rating summary" in done


def test_a_game_against_a_cheater_shows_no_chance_and_not_their_rating(
    client, cheat_and_others, queued_recomputes
):
    """A victim's history: the cheater's rating is shown nowhere and their games move
    nobody, so such a row has neither their rating nor a chance (page and API)."""
    cheat = cheat_and_others
    set_player_flags(cheat, cheater=True, by="test")
    recompute_task()
    victim = Rating.objects.select_related("player", "character").get(
        player__in=Match.objects.filter(player_b=cheat).values("player_a"), character__code="SO"
    )
    games = [game for s in match_sets(victim).sets for game in s.games]
    against = [game for game in games if game.opponent.id == cheat.id]
    others = [game for game in games if game.opponent.id != cheat.id]
    assert len(against) == 6 and others
    assert all(g.win_probability is None and g.opponent_value is None for g in against)
    assert all(g.win_probability is not None and g.opponent_value is not None for g in others)
    body = client.get(f"/api/v1/players/{victim.player_id}/SO/matches/?page_size=100").json()
    rows = [row for row in body["results"] if row["opponent"]["id"] == cheat.id]
    assert len(rows) == 6
    assert all(row["win_probability"] is None and row["opponent_rating"] is None for row in rows)
