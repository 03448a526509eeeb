"""Issue 35, item 2: crafted games cannot bend the chances the site shows."""

from __future__ import annotations

from datetime import timedelta

import pytest

from matches.selectors.calibration import current_calibration
from matches.selectors.chances import chance_model
from matches.services.calibration import refit_calibration
from matches.simulation.league import LeagueSimulator
from players import rules
from players.models import Rating
from players.seed_roster import SEED_IDS as CODE_TO_ID
from tests.factories import replay
from tests.fixtures.league import DAYS, START, SeededLeague, rate_replays

SOL, KY = CODE_TO_ID["SO"], CODE_TO_ID["KY"]


def shown_gap_chance() -> float:
    """The chance the site shows a Sol 200 points above a Ky, both settled."""
    return chance_model().game(1700.0, 50.0, 1500.0, 50.0, SOL, KY).chance


def sol_against_ky_league():
    """A simulated league whose every game is a Sol against a Ky: the Sol-Ky offset is
    then known well (a small error, barely shrunk), as on a busy site."""
    simulator = LeagueSimulator(130, 7, START, rate=3000 / (DAYS * 86400))
    replays = []
    for game in simulator.games(3000):
        for side, code in zip(game["players"], ("SO", "KY"), strict=True):
            side["character"] = code
        replays.append(game)
    return SeededLeague(replays, rate_replays(replays))


def spare_games(count: int, start, winner_id: str, loser_id: str) -> list[dict]:
    return [
        replay(
            100_000 + n,
            loser_id,
            winner_id,
            winner=2,
            characters=("SO", "KY"),
            names=("spare-sol", "spare-ky"),
            played_at=start + timedelta(seconds=30 * n),
        )
        for n in range(count)
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("upsets", "pairs"), [(70, 1), (70, 35), (400, 1), (400, 100), (2000, 1), (2000, 100)]
)
def test_games_between_spare_accounts_do_not_move_a_shown_chance(upsets, pairs):
    """The audit's 70, 400 and 2,000 crafted upsets (a spare Sol losing to a spare Ky),
    between one pair of spare accounts or spread over many pairs, whose first games at
    equal ratings tell the most: before the fix, 400 over 100 pairs moved the shown chance
    of a 200-point gap 1.5 points (71.1% to 69.5%), 2,000 over 100 pairs 2.0 points."""
    league = sol_against_ky_league()
    before = shown_gap_chance()
    start = league.ended_at + timedelta(minutes=1)
    crafted = []
    for pair in range(pairs):
        games = spare_games(
            upsets // pairs,
            start + timedelta(days=pair),
            str(9000 + 2 * pair),
            str(9001 + 2 * pair),
        )
        for game in games:
            game["id"] = f"crafted-{pair}-{game['id']}"
        crafted += games
    rate_replays(crafted)
    after = shown_gap_chance()
    assert abs(after - before) < 0.01


@pytest.mark.django_db
def test_crafted_upsets_between_established_accounts_bend_only_the_measurement():
    """The audit's second attack: two established accounts far apart whose weaker side
    keeps winning (the games do not count) drove the calibration's temperature, which
    was applied to every chance shown. Today the calibration is a measurement only: the
    fit moves, what the site shows does not."""
    league = sol_against_ky_league()
    ratings = Rating.objects.filter(deviation__lt=rules.low_deviation()).order_by("value")
    weak, strong = ratings.first(), ratings.last()
    refit_calibration()
    before, temperature = shown_gap_chance(), current_calibration().temperature
    start = league.ended_at + timedelta(minutes=1)
    upsets = [
        replay(
            200_000 + n,
            weak.player_id,
            strong.player_id,
            winner=1,
            characters=(weak.character.code, strong.character.code),
            played_at=start + timedelta(seconds=30 * n),
        )
        for n in range(400)
    ]
    rate_replays(upsets)
    refit_calibration()

    assert current_calibration().temperature != pytest.approx(temperature, abs=0.05)
    assert abs(shown_gap_chance() - before) < 0.01
