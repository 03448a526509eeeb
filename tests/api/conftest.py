"""A small league for the API tests, built by the real pipeline: ingest, rate, refresh, evaluate."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.db import transaction
from django.test import override_settings
from rest_framework.test import APIClient

from matches.replays.readers import iter_replay_payloads
from matches.services import opponents
from matches.services.evaluation import refresh_lab
from matches.services.ingest import file_import_source, store_replays
from matches.services.rating import rate_pending_matches, rebuild_bracket_matchups
from matches.services.statistics import refresh_statistics
from players.api.examples import OPPONENT_ID, PLAYER_ID
from players.models import Player
from players.services import ensure_roster
from tests.factories import BASE_TIME, replay


@dataclass(frozen=True)
class Member:
    id: str
    name: str
    characters: tuple[str, ...]  # the first is the main
    skill: float


# The first two use the ids of the schema's examples, so that schemathesis finds them.
ALICE = Member(PLAYER_ID, "Sol Badguy Main", ("SO", "KY"), 1750)
BOB = Member(OPPONENT_ID, "kyo", ("KY",), 1650)
CAROL = Member("230000000000000003", "Carol", ("MA",), 1550)
DAVE = Member("230000000000000004", "Dave", ("SO",), 1500)
ERIN = Member("230000000000000005", "Erin", ("AX",), 1450)  # was "OldErin" at first
GHOST = Member("230000000000000006", "Ghost", ("SO",), 1600)  # hidden: appears nowhere
MEMBERS = (ALICE, BOB, CAROL, DAVE, ERIN, GHOST)
ERIN_OLD_NAME = "OldErin"
GAMES = 1200
GAME_GAP = timedelta(minutes=12)  # 1200 games: 10 days
LAST_GAME_AT = BASE_TIME + GAME_GAP * (GAMES - 1)
# The league's "now": statistics are refreshed, and fair opponents chosen, as of then.
LEAGUE_NOW = LAST_GAME_AT + timedelta(minutes=30)


def _name(member: Member, n: int) -> str:
    return ERIN_OLD_NAME if member is ERIN and n < GAMES // 2 else member.name


def _character(member: Member, rng: random.Random) -> str:
    return member.characters[0] if rng.random() < 0.9 else rng.choice(member.characters)


def league_replays() -> list[dict]:
    """GAMES replays between the members, the stronger winning more often; deterministic."""
    rng = random.Random(5)
    replays = []
    for n in range(GAMES):
        one, two = rng.sample(MEMBERS, 2)
        p_one = 1 / (1 + 10 ** ((two.skill - one.skill) / 400))
        replays.append(
            replay(
                n,
                one.id,
                two.id,
                winner=1 if rng.random() < p_one else 2,
                characters=(_character(one, rng), _character(two, rng)),
                names=(_name(one, n), _name(two, n)),
                played_at=BASE_TIME + GAME_GAP * n,
            )
        )
    return replays


def seed_league() -> None:
    """Store, rate and refresh the league (GHOST opted out before rating), file the games
    under the top-N matchup brackets by the final ranks, and evaluate the rating systems."""
    ensure_roster()
    store_replays(source=file_import_source(), replays=iter_replay_payloads(league_replays()))
    Player.objects.filter(id=GHOST.id).update(hidden=True)
    rate_pending_matches()
    refresh_statistics(now=LEAGUE_NOW)
    rebuild_bracket_matchups()
    refresh_lab()


def pin_opponents_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fair opponents are ratings played in the last days before "now": make that the
    league's now, so that the league's ratings stay recent whatever today's date."""
    monkeypatch.setattr(opponents, "timezone", SimpleNamespace(now=lambda: LEAGUE_NOW))


_LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture(scope="module")
def league(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The league for every test of a module, rolled back after the module."""
    with django_db_blocker.unblock(), override_settings(CACHES=_LOCMEM), transaction.atomic():
        seed_league()
        yield
        transaction.set_rollback(True)


@pytest.fixture
def api(league, db, monkeypatch) -> APIClient:
    pin_opponents_clock(monkeypatch)
    return APIClient()
