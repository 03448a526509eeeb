"""Players' flags through matches.services.flags: recorded, shown on the next request, and
every rating recomputed without the flagged player's games by one queued task per burst,
never inside the operator's request."""

from __future__ import annotations

import pytest

from matches.models import CharacterMatchup, PlayerFlagChange
from matches.services.character_matchups import rebuild_character_matchups
from matches.services.flags import (
    QUEUED_RECOMPUTE_LOST_AFTER,
    RECOMPUTE_TASK,
    set_player_flags,
)
from matches.tasks import recompute_after_flag_changes as recompute_task
from players.models import Player
from tests.factories import PlayerFactory
from tests.matches.test_character_matchups import counted_game
from web.generation import current_generation

pytestmark = pytest.mark.django_db


def game_cell_title(client) -> str:
    html = client.get("/matchups").content.decode()
    start = html.index('title="Sol vs Ky: ')
    return html[start : html.index('"', start + 7)]


@pytest.fixture
def cheat_and_others() -> Player:
    """Sol beats Ky 3-3 and loses 6 games to a player about to be flagged; matchups built."""
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
    assert sum(wins + losses for wins, losses in CharacterMatchup.objects.values_list(
        "wins", "losses"
    )) == 2 * 6  # the cheater's 6 games dropped out: Sol-Ky 3-3, both ways  # fmt: skip


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
