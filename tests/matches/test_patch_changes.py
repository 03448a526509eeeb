"""A change to the patches places again only the games it can move
(matches.services.patches: `moved_by`, `changing_patches`, `reassign_after_change`): each
change's reach, every game's patch and the kept counts after a run of changes against a
placement from scratch, and the games out of reach left unread."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from matches.models import GameCount, Match, Patch
from matches.services.patches import (
    Moved,
    assign_patches,
    changing_patches,
    moved_by,
    reassign_after_change,
)
from matches.tasks import reassign_patches
from players.models import Character, Player
from tests.factories import BASE_TIME, MatchFactory, PlayerFactory
from tests.matches.test_game_counts import counted_afresh, kept, random_game

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def at(days: float):
    return BASE_TIME + days * DAY


def test_a_change_reaches_the_versions_and_times_whose_patch_it_changes():
    before = {1: (at(0), ("1.0",)), 2: (at(10), ("1.1", "1.1b")), 3: (at(20), ())}
    # Renamed, or a version added then taken back: nothing moves.
    assert moved_by(before, before) == Moved()
    # The newest patch went live a day later: the day it now leaves to 1.1.
    later = {**before, 3: (at(21), ())}
    assert moved_by(before, later) == Moved(spans=((at(20), at(21)),))
    # ... or earlier: the day it now takes from 1.1.
    assert moved_by(before, {**before, 3: (at(19), ())}) == Moved(spans=((at(19), at(20)),))
    # A version moved from 1.1 to the newest, another added to it.
    versions = {**before, 2: (at(10), ("1.1",)), 3: (at(20), ("1.1b", "1.2"))}
    assert moved_by(before, versions) == Moved(versions=("1.1b", "1.2"))
    # The middle patch deleted: its versions and its span, now 1.0's.
    gone = {1: before[1], 3: before[3]}
    assert moved_by(before, gone) == Moved(versions=("1.1", "1.1b"), spans=((at(10), at(20)),))
    # A patch added last: open-ended; one added first: the games before every patch.
    assert moved_by(before, {**before, 4: (at(30), ())}) == Moved(spans=((at(30), None),))
    assert moved_by(before, {**before, 4: (at(-5), ())}) == Moved(spans=((at(-5), at(0)),))
    # Two neighbouring stretches of one change are one span.
    swapped = {**before, 2: (at(20), ("1.1", "1.1b")), 3: (at(10), ())}
    assert moved_by(before, swapped) == Moved(spans=((at(10), None),))
    assert Moved.from_json(moved_by(before, gone).as_json()) == moved_by(before, gone)


def expected_patches() -> dict[int, int | None]:
    """Each game's patch from scratch: its version's, else the latest live at its time."""
    patches = list(Patch.objects.order_by("live_at"))
    expected = {}
    for id, version, played_at in Match.objects.values_list("id", "version", "played_at"):
        listed = [patch.id for patch in patches if version and version in patch.versions]
        live = [patch.id for patch in patches if patch.live_at <= played_at]
        expected[id] = (listed or live or [None])[-1]
    return expected


@pytest.fixture
def league():
    """300 games over 40 days, some reporting a version, one player hidden."""
    rng = random.Random(43)
    players = PlayerFactory.create_batch(6)
    Player.objects.filter(pk=players[0].pk).update(hidden=True)
    characters = list(Character.objects.filter(code__in=["SO", "KY", "MA"]))
    for _ in range(300):
        random_game(
            rng,
            players,
            characters,
            played_at=at(-5 + 45 * rng.random()),
            version=rng.choice(["", "", "", "1.0", "1.1", "1.2", "9.9"]),
        )


def test_each_change_places_the_games_it_moves_as_from_scratch(
    league, monkeypatch, django_capture_on_commit_callbacks
):
    queued: list[dict] = []
    monkeypatch.setattr(reassign_patches, "delay", queued.append)
    Patch.objects.create(name="1.0", versions=["1.0"], live_at=at(0))
    Patch.objects.create(name="1.1", versions=["1.1"], live_at=at(15))
    assign_patches()

    def change(edit) -> int:
        with django_capture_on_commit_callbacks(execute=True), changing_patches():
            edit()
        moved = reassign_after_change(queued.pop())
        assert dict(Match.objects.values_list("id", "patch_id")) == expected_patches()
        assert kept() == counted_afresh()
        assert not GameCount.objects.filter(games__lte=0).exists()
        return moved

    newest = Patch(name="1.2", versions=[], live_at=at(30))
    assert change(newest.save) > 0
    newest.live_at = at(25)
    assert change(newest.save) > 0
    newest.versions = ["1.2", "1.1"]
    Patch.objects.filter(name="1.1").update(versions=[])  # the form's rule: one patch each
    assert change(newest.save) > 0
    newest.name = "1.2 final"
    assert change(newest.save) == 0
    assert change(Patch.objects.get(name="1.1").delete) > 0
    assert change(Patch(name="0.9", versions=["9.9"], live_at=at(-3)).save) > 0
    # Games stored since the last placement are placed by the same run.
    MatchFactory(played_at=at(26), version="1.0")
    assert change(Patch.objects.filter(name="0.9").delete) > 0


def test_games_out_of_the_change_s_reach_are_not_read_again(
    league, monkeypatch, django_capture_on_commit_callbacks
):
    """A game outside the change's versions and spans keeps what it holds, even a patch
    it should not have (written here behind the placement's back): not read, not written.
    Placing every game (a task queued without the change) puts it right."""
    queued: list[dict] = []
    monkeypatch.setattr(reassign_patches, "delay", queued.append)
    first = Patch.objects.create(name="1.0", versions=[], live_at=at(0))
    assign_patches()
    early = Match.objects.filter(played_at__range=(at(1), at(10)), version="").first()
    Match.objects.filter(pk=early.pk).update(patch=None)
    with django_capture_on_commit_callbacks(execute=True), changing_patches():
        Patch.objects.create(name="1.1", versions=["1.1"], live_at=at(20))
    assert queued[0]["spans"] == [[at(20).isoformat(), None]]
    reassign_patches(queued[0])
    assert Match.objects.get(pk=early.pk).patch_id is None
    assert (
        Match.objects.filter(played_at__gte=at(20), version="").exclude(patch__name="1.1").count()
        == 0
    )
    reassign_patches()
    assert Match.objects.get(pk=early.pk).patch_id == first.pk
