"""Suspicions kept for review (matches.services.integrity): opened once, refreshed while
open, and never reopened or rewritten once an operator has reviewed them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import IntegrityFlag
from matches.ratings.integrity import Suspicion, SuspicionKind
from matches.services.integrity import record_suspicions
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def suspicion(player: str, wins: int, kind: SuspicionKind = SuspicionKind.ALTERNATE_ACCOUNT):
    return Suspicion(
        kind=kind,
        player=player,
        character=None if kind is SuspicionKind.WIN_TRADING else 0,
        games=20,
        expected_wins=8.5,
        wins=wins,
        probability=1e-6,
        partners=("spare",) if kind is SuspicionKind.WIN_TRADING else (),
        match_ids=(3, 4),
    )


def test_a_new_suspect_opens_one_flag_and_fresher_evidence_refreshes_it():
    player = PlayerFactory()
    first = timezone.now()

    assert record_suspicions([suspicion(player.id, 18)], now=first) == 1
    assert record_suspicions([suspicion(player.id, 19)], now=first + timedelta(hours=1)) == 0

    flag = IntegrityFlag.objects.get()
    assert (flag.status, flag.wins, flag.first_flagged_at) == ("open", 19, first)
    assert flag.updated_at == first + timedelta(hours=1)
    assert flag.match_ids == [3, 4]


def test_kinds_are_separate_flags_and_a_ring_has_no_character():
    player = PlayerFactory()
    opened = record_suspicions(
        [suspicion(player.id, 18), suspicion(player.id, 18, SuspicionKind.WIN_TRADING)] * 2
    )
    assert opened == 2
    ring = IntegrityFlag.objects.get(kind="ring")
    assert (ring.character_id, ring.partners) == (None, ["spare"])


@pytest.mark.parametrize("status", ["dismissed", "cheater", "linked"])
def test_a_reviewed_flag_is_neither_reopened_nor_rewritten(status):
    player = PlayerFactory()
    record_suspicions([suspicion(player.id, 18)])
    IntegrityFlag.objects.update(status=status, reviewed_by="operator")

    assert record_suspicions([suspicion(player.id, 20)]) == 0
    flag = IntegrityFlag.objects.get()
    assert (flag.status, flag.wins, flag.reviewed_by) == (status, 18, "operator")


def test_an_operators_review_is_recorded_and_marking_a_cheater_sets_the_flag(
    queued_recomputes, django_capture_on_commit_callbacks
):
    from matches.services.integrity_review import review_flag
    from players.models import Player

    suspect, other, third = PlayerFactory(), PlayerFactory(), PlayerFactory()
    record_suspicions(
        [suspicion(p.pk, 15, SuspicionKind.WIN_TRADING) for p in (suspect, other, third)]
    )
    flags = {flag.player_id: flag for flag in IntegrityFlag.objects.select_related("player")}
    moment = timezone.now() - timedelta(minutes=5)

    with django_capture_on_commit_callbacks(execute=True):
        review_flag(flags[suspect.pk], IntegrityFlag.Status.CHEATER, by="op", now=moment)
    cheater = IntegrityFlag.objects.get(player=suspect)
    assert (cheater.status, cheater.reviewed_by, cheater.reviewed_at) == ("cheater", "op", moment)
    assert Player.objects.get(pk=suspect.pk).cheater and len(queued_recomputes) == 1

    with pytest.raises(ValueError, match="linked"):
        review_flag(flags[other.pk], IntegrityFlag.Status.LINKED, by="op")
    with pytest.raises(ValueError, match="themselves"):
        review_flag(flags[other.pk], IntegrityFlag.Status.LINKED, by="op", linked_to=other)
    review_flag(flags[other.pk], IntegrityFlag.Status.LINKED, by="op", linked_to=third)
    linked = IntegrityFlag.objects.get(player=other)
    assert (linked.status, linked.linked_to_id) == ("linked", third.pk)
    assert not Player.objects.get(pk=other.pk).cheater

    with django_capture_on_commit_callbacks(execute=True):
        review_flag(flags[third.pk], IntegrityFlag.Status.DISMISSED, by="op2")
    assert IntegrityFlag.objects.get(player=third).status == "dismissed"
    assert not Player.objects.get(pk=third.pk).cheater and len(queued_recomputes) == 1
