"""The ring test against the real database: planted rings are flagged for review with
their games, honest rivals who meet often with mixed results are not."""

from __future__ import annotations

from datetime import timedelta

import pytest

from matches.models import IntegrityFlag, Match
from matches.services.win_trading import find_rings
from matches.simulation.league import LeagueSimulator, PlantedRings
from tests.fixtures.league import DAYS, START, rate_replays

pytestmark = pytest.mark.django_db

GAMES = 8_000


def rivals_games(first: dict, second: dict, count: int) -> list[dict]:
    """`count` games between two league players, every few hours, the first winning
    four of every seven (mixed results)."""
    games = []
    for n in range(count):
        moment = START + timedelta(hours=5 * n + 1, minutes=7)
        games.append(
            {
                "id": f"rivals-{n}",
                "played_at": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "floor": 10,
                "winner": 1 if n % 7 < 4 else 2,
                "players": [first, second],
            }
        )
    return games


def test_planted_rings_are_flagged_with_their_games_and_honest_rivals_are_not():
    league = LeagueSimulator(
        120, 3, START, rate=GAMES / (DAYS * 86400), rings=PlantedRings(count=2, share=0.03)
    )
    replays = list(league.games(GAMES))
    planted = {ring.beneficiary: set(ring.partners) for ring in league.planted_rings()}
    ring_members = set(planted) | {p for partners in planted.values() for p in partners}
    # The busiest two players outside the rings become heavy rivals.
    played: dict[str, dict] = {}
    counts: dict[str, int] = {}
    for replay in replays:
        for side in replay["players"]:
            played[side["id"]] = {key: side[key] for key in ("id", "name", "character", "platform")}
            counts[side["id"]] = counts.get(side["id"], 0) + 1
    first, second = sorted((p for p in counts if p not in ring_members), key=lambda p: -counts[p])[
        :2
    ]
    ended_at = rate_replays(replays + rivals_games(played[first], played[second], 140))

    flags = {flag.player_id: flag for flag in IntegrityFlag.objects.all()}  # by the refresh
    assert set(flags) == set(planted)
    for beneficiary, flag in flags.items():
        assert flag.kind == IntegrityFlag.Kind.WIN_TRADING and flag.status == "open"
        assert set(flag.partners) <= planted[beneficiary] and flag.partners
        assert flag.probability < 1e-6
        assert flag.wins > flag.expected_wins + 5
        evidence = Match.objects.filter(pk__in=flag.match_ids)
        assert evidence.count() == flag.games == len(flag.match_ids)
        pairs = {frozenset((m.player_a_id, m.player_b_id)) for m in evidence}
        assert pairs == {frozenset((beneficiary, p)) for p in flag.partners}

    # The rivals met 140 times, far more often than their activity predicts, 80-60.
    between = Match.objects.filter(player_a_id=min(first, second), player_b_id=max(first, second))
    assert between.count() >= 140
    suspects = {s.player for s in find_rings(ended_at, days=DAYS + 1)}
    assert suspects == set(planted)
