"""The fair tuner: each system's own parameters by golden-section coordinate search,
learned on the earlier part of a history and scored on the later part."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from matches.services.tuning import (
    SYSTEMS,
    History,
    held_out_calibration,
    held_out_log_loss,
    tune_system,
)
from matches.simulation.league import LeagueSimulator

# Numbers of the reference formulas (the one-chance model: tests/matches/test_one_chance.py).
pytestmark = pytest.mark.usefixtures("reference_formulas")


GLICKO = next(system for system in SYSTEMS if system.name == "glicko")
HOUR = 3600.0
LEAGUE_START = datetime(2026, 3, 2, tzinfo=UTC)


def drifting_history(drift_per_hour: float, *, seed: int = 5) -> History:
    """200 players whose true skill takes a random walk of `drift_per_hour` points (sd)
    per hour; 48,000 games over 100 days, so each plays about every 5 hours. The later
    half is held out."""
    rng = random.Random(seed)
    players, games = 200, 48_000
    skill = [rng.gauss(1500, 150) for _ in range(players)]
    last_seen = [0.0] * players
    rows, at = [], 0.0
    for n in range(games):
        at += rng.expovariate(1.0 / (100 * 24 * HOUR / games))
        a, b = rng.sample(range(players), 2)
        for player in (a, b):
            hours = (at - last_seen[player]) / HOUR
            skill[player] += rng.gauss(0.0, drift_per_hour * hours**0.5)
            last_seen[player] = at
        p = 1 / (1 + 10 ** ((skill[b] - skill[a]) / 400))
        rows.append((a, b, 1.0 if rng.random() < p else 0.0, at, int(n >= games // 2)))
    return History(rows, players, games // 2, games - games // 2)


def decay_only(start_decay: float = 3.1):
    dimension = next(d for d in GLICKO.dimensions if d.name == "decay_constant")
    return replace(
        GLICKO,
        dimensions=(dimension,),
        start=lambda: {**GLICKO.start(), "decay_constant": start_decay},
    )


def test_a_known_drift_is_best_fitted_by_a_matching_decay(settings):
    steady = tune_system(decay_only(), drifting_history(0.0), rounds=1)
    drifting = tune_system(decay_only(), drifting_history(12.0), rounds=1)
    assert steady.search.loss <= steady.search.start_loss
    assert drifting.search.loss <= drifting.search.start_loss
    # Skill that moves 12 points an hour (sd) is best followed by a deviation that grows
    # by c = 12 per hour-long period (measured: 12.98); skill that never moves wants it
    # to grow hardly at all (measured: 0.22, the bottom of the range).
    assert 9.0 < drifting.search.best["decay_constant"] < 16.0
    assert steady.search.best["decay_constant"] < 1.0


def test_only_the_held_out_games_are_scored_each_predicted_before_it_is_learned():
    history = drifting_history(5.0)
    elo = next(system for system in SYSTEMS if system.name == "elo")
    ratings, loss = [1500.0] * history.ratings, 0.0
    for a, b, score, _, scored in history.rows:
        p = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
        if scored:
            loss -= math.log(p if score else 1 - p)
        ratings[a] += 24 * (score - p)
        ratings[b] -= 24 * (score - p)
    assert held_out_log_loss(elo.build({"k": 24.0}), history) == pytest.approx(
        loss / history.held_out, rel=1e-12
    )


def simulated_history(players: int, games: int, days: float, *, seed: int = 3) -> History:
    """A league from the simulator (drift, arrivals, hidden matchups) as the tuner reads
    it: one rating per (player, character), the later half held out."""
    league = LeagueSimulator(players, seed, LEAGUE_START, rate=games / (days * 86400))
    keys: dict[tuple[str, str], int] = {}
    rows = []
    for n, game in enumerate(league.games(games)):
        a, b = (keys.setdefault((s["id"], s["character"]), len(keys)) for s in game["players"])
        at = datetime.fromisoformat(game["played_at"]).timestamp()
        rows.append((a, b, 1.0 if game["winner"] == 1 else 0.0, at, int(n >= games // 2)))
    return History(rows, len(keys), games // 2, games - games // 2)


def test_on_a_young_league_the_calibrated_chances_beat_a_coin_flip_on_later_games():
    # 3,000 games among 1,000 players in a day: 6 games per player, fewer per rating.
    history = simulated_history(1_000, 3_000, 1.0)
    result = held_out_calibration(GLICKO.build(GLICKO.start()), history, refit_every=3600)
    # The model itself is worse than a coin flip on the later games: its ratings are
    # still settling and it is far too sure of them...
    assert result.model.log_loss > math.log(2)
    assert min(result.temperatures) > 1.5
    # ...while the chances shown, through temperatures fitted on earlier games only,
    # beat a coin flip on the later ones.
    assert result.shown.log_loss < math.log(2)
    assert result.model.count == result.shown.count == history.held_out


def test_the_calibration_shows_each_game_through_a_fit_on_earlier_games_only():
    history = simulated_history(300, 4_000, 10.0)
    system = GLICKO.build(GLICKO.start())
    flipped = replace(
        history,
        rows=[(a, b, 1.0 - s if kind else s, at, kind) for a, b, s, at, kind in history.rows],
    )
    # The temperature in force at the first held-out game saw none of their results...
    first = held_out_calibration(system, history, refit_every=3600).temperatures[0]
    assert held_out_calibration(system, flipped, refit_every=3600).temperatures[0] == first
    # ...and refitting only once (a refresh interval longer than the history) keeps the
    # model's chances as they are: no fit ever ran.
    never = held_out_calibration(system, history, refit_every=1e9)
    assert never.temperatures == (1.0, 1.0)
    assert never.shown.log_loss == never.model.log_loss
