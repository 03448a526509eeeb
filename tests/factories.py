"""factory_boy factories and replay builders for tests."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import factory

from matches.models import Match, ReplaySource
from players.models import Character, Player, Rating

BASE_TIME = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    # A range of its own, apart from the ids test leagues and replays use.
    id = factory.Sequence(lambda n: str(990_000_000_000_000_000 + n))
    name = factory.Sequence(lambda n: f"Player {n}")
    platform = "pc"
    floor = 10
    first_seen = BASE_TIME
    last_seen = BASE_TIME


class RatingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Rating

    player = factory.SubFactory(PlayerFactory)
    character = factory.LazyFunction(lambda: Character.objects.get(code="SO"))
    value = 1500.0
    deviation = 60.0
    wins = 10
    losses = 10
    last_played_at = BASE_TIME
    last_decay_at = BASE_TIME
    # Confirmed by the default RANKED_MIN_OPPONENTS (players.rules.confirmed): a settled
    # rating made here is ranked unless a test says otherwise.
    confirmations = 10


class ReplaySourceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ReplaySource
        django_get_or_create = ("name",)

    name = "test-source"
    kind = ReplaySource.Kind.FILE


class MatchFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Match

    source = factory.SubFactory(ReplaySourceFactory)
    source_replay_id = factory.Sequence(lambda n: f"m-{n}")
    played_at = factory.Sequence(lambda n: BASE_TIME + timedelta(minutes=n))
    ingested_at = factory.LazyAttribute(lambda m: m.played_at)
    floor = 10
    player_a = factory.SubFactory(PlayerFactory)
    player_b = factory.SubFactory(PlayerFactory)
    character_a = factory.LazyFunction(lambda: Character.objects.get(code="SO"))
    character_b = factory.LazyFunction(lambda: Character.objects.get(code="KY"))
    winner = Match.Winner.A


def replay(
    n: int,
    player_1: str = "100000000000000001",
    player_2: str = "100000000000000002",
    *,
    winner: int = 1,
    characters: tuple[Any, Any] = ("SO", "KY"),
    names: tuple[str, str] | None = None,
    played_at: Any = None,
    **extra: Any,
) -> dict[str, Any]:
    """One replay in the format of docs/replay-format.md; game n is played n minutes after
    BASE_TIME."""
    moment = played_at if played_at is not None else BASE_TIME + timedelta(minutes=n)
    names = names or (f"name-{player_1[-4:]}", f"name-{player_2[-4:]}")
    return {
        "id": f"r-{n:06d}",
        "played_at": moment.isoformat() if isinstance(moment, datetime) else moment,
        "floor": 10,
        "winner": winner,
        "players": [
            {"id": player_1, "name": names[0], "character": characters[0], "platform": "pc"},
            {"id": player_2, "name": names[1], "character": characters[1], "platform": "ps"},
        ],
        **extra,
    }


def random_league(games: int, seed: int = 7) -> list[dict]:
    """Games among eight players and three characters, a few minutes apart."""
    rng = random.Random(seed)
    players = [str(100000000000000000 + n) for n in range(8)]
    codes = ["SO", "KY", "MA"]
    out = []
    for n in range(games):
        p1, p2 = rng.sample(players, 2)
        out.append(
            replay(
                n * 37 + rng.randrange(30),
                p1,
                p2,
                winner=rng.choice([1, 2]),
                characters=(rng.choice(codes), rng.choice(codes)),
            )
        )
    return out


def store_calibration(
    temperature: float, *, log_loss_before: float = 0.66, log_loss_after: float = 0.65
) -> None:
    """A fitted calibration, as each refresh stores it (matches.services.calibration), for
    pages and the API to show through."""
    from matches.selectors.calibration import CALIBRATION_STATISTIC
    from matches.services.site_statistic import store_statistic

    def bins(observed_shift: float) -> list[dict]:
        return [
            {
                "low": i / 10,
                "high": (i + 1) / 10,
                "games": 100,
                "predicted": (i + 0.5) / 10,
                "observed": (i + 0.5) / 10 + observed_shift,
            }
            for i in range(10)
        ]

    store_statistic(
        CALIBRATION_STATISTIC,
        {
            "temperature": temperature,
            "games": 1000,
            "log_loss_before": log_loss_before,
            "log_loss_after": log_loss_after,
            "fitted_at": "2026-11-20T04:00:00+00:00",
            "before": bins(-0.02),
            "after": bins(0.0),
        },
    )


def rate_match(match, value_a: float, value_b: float, *, counted: bool = True):
    """A stored rating result for `match`: side A rated `value_a` before it and B `value_b`,
    both at deviation 60, changes 0, the chance from the ratings alone (what matchup and
    statistics aggregates read)."""
    from matches.models import MatchRating
    from matches.ratings.glicko import win_probability

    return MatchRating.objects.create(
        match=match,
        rated_at=match.played_at,
        counted=counted,
        value_a=value_a,
        deviation_a=60.0,
        change_a=0.0,
        value_b=value_b,
        deviation_b=60.0,
        change_b=0.0,
        chance_a=win_probability(value_a, 60.0, value_b, 60.0),
    )
