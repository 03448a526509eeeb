"""Tuning every rating system fairly on the site's own history
(docs/rating-model.md#the-lab-other-systems-and-tuning).

Each system learns from the earlier part of the stored history and is scored on the
later part (log loss of each game predicted before it is learned), never the other
way round. Its own parameters are chosen by coordinate search with golden-section
steps over continuous ranges (matches.ratings.coordinate_search), starting from its
defaults (the site's Glicko from the current settings), so a tuned alternative is
compared with the tuned site system, not with a guess.

The history is read from the database once and kept in memory as plain rows; every
evaluation is then one pass of one system over those rows. On PostgreSQL-sized
histories the systems are tuned side by side in forked processes, one per core.
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from matches.models import Match
from matches.params import glicko_params
from matches.ratings.base import ContinuousGlicko, RatingSystem
from matches.ratings.calibration import (
    LogitHistogram,
    RollingCalibration,
    TemperatureFit,
    fit_temperature,
)
from matches.ratings.coordinate_search import Dimension, SearchResult, coordinate_search
from matches.ratings.elo import Elo
from matches.ratings.glicko2 import Glicko2, Glicko2Params
from matches.ratings.metrics import PredictionMetrics
from matches.ratings.trueskill import TrueSkill, TrueSkillParams
from matches.services.evaluation import history_chunks

DEFAULT_HELD_OUT = 0.5
EPSILON = PredictionMetrics().epsilon  # the lab's floor on a predicted chance
DEFAULT_ROUNDS = 3
LINE_EVALUATIONS = 8  # per parameter in the first round: the bracket shrinks to 0.618^6 = 5%
# Later rounds refine around the current value: a quarter of the range, 5 passes per
# parameter (to 0.25 * 0.618^3 = 6% again), so a round costs 5/8 of the first.
REFINE_WIDTH = 0.25
REFINE_EVALUATIONS = 5
# Elo's tiered variant: its second K applies from this rating up.
ELO_TIER_THRESHOLD = 1700.0

# The site's Glicko constants the tuner chooses, with the settings that hold them.
GLICKO_SETTINGS = {
    "initial_deviation": "RATING_INITIAL_DEVIATION",
    "minimum_deviation": "RATING_MINIMUM_DEVIATION",
    "decay_constant": "RATING_DECAY_CONSTANT",
    "update_damping": "RATING_UPDATE_DAMPING",
    "counting_margin": "RATING_COUNTING_MARGIN",
}


@dataclass(frozen=True)
class TunableSystem:
    """A system the tuner can build from a point of its parameter space."""

    name: str
    dimensions: tuple[Dimension, ...]
    start: Callable[[], dict[str, float]]
    build: Callable[[Mapping[str, float]], RatingSystem[Any]]


def _glicko_start() -> dict[str, float]:
    params = glicko_params()
    return {name: getattr(params, name) for name in GLICKO_SETTINGS}


def _glicko(point: Mapping[str, float]) -> RatingSystem[Any]:
    return ContinuousGlicko(replace(glicko_params(), **point), apply_counting_rule=True)


def _glicko2(point: Mapping[str, float]) -> RatingSystem[Any]:
    return Glicko2(Glicko2Params(tau=point["tau"], period_seconds=point["period_hours"] * 3600))


def _trueskill(point: Mapping[str, float]) -> RatingSystem[Any]:
    return TrueSkill(TrueSkillParams(beta=point["beta"], tau=point["tau"]))


SYSTEMS: tuple[TunableSystem, ...] = (
    TunableSystem(
        "glicko",
        (
            Dimension("initial_deviation", 30.0, 700.0, log=True),
            Dimension("minimum_deviation", 5.0, 120.0, log=True),
            Dimension("decay_constant", 0.2, 30.0, log=True),
            Dimension("update_damping", 0.0, 0.5),
            Dimension("counting_margin", 0.0, 0.25),
        ),
        _glicko_start,
        _glicko,
    ),
    TunableSystem(
        "elo", (Dimension("k", 2.0, 128.0, log=True),), lambda: {"k": 32.0}, lambda p: Elo(p["k"])
    ),
    TunableSystem(
        "elo-tiered",
        (Dimension("k", 2.0, 128.0, log=True), Dimension("k_top", 2.0, 128.0, log=True)),
        lambda: {"k": 32.0, "k_top": 16.0},
        lambda p: Elo(p["k"], ((ELO_TIER_THRESHOLD, p["k_top"]),)),
    ),
    TunableSystem(
        "glicko2",
        # Periods up to a season: on a league whose skills drift slowly the best is long.
        (Dimension("tau", 0.05, 1.5), Dimension("period_hours", 0.25, 24.0 * 90, log=True)),
        lambda: {"tau": Glicko2Params().tau, "period_hours": 24.0},
        _glicko2,
    ),
    TunableSystem(
        "trueskill",
        (Dimension("beta", 0.3, 60.0, log=True), Dimension("tau", 0.001, 2.0, log=True)),
        lambda: {"beta": TrueSkillParams().beta, "tau": TrueSkillParams().tau},
        _trueskill,
    ),
)
SYSTEM_NAMES = tuple(system.name for system in SYSTEMS)


@dataclass(frozen=True)
class History:
    """The stored games as plain rows, the first `training` of them warm-up only."""

    rows: list[tuple[int, int, float, float, int]]
    ratings: int
    training: int
    held_out: int


def load_history(*, held_out: float = DEFAULT_HELD_OUT, since: datetime | None = None) -> History:
    if not 0.0 < held_out < 1.0:
        raise ValueError(f"the held-out share must lie between 0 and 1, got {held_out}")
    matches = Match.objects.all() if since is None else Match.objects.filter(played_at__gte=since)
    training = int(matches.count() * (1.0 - held_out))
    rows: list[tuple[int, int, float, float, int]] = []
    ratings = 0
    for chunk, seen, _ in history_chunks(matches, score_from=training):
        rows.extend(chunk)
        ratings = seen
    scored = sum(1 for row in rows if row[4])
    return History(rows, ratings, len(rows) - scored, scored)


def held_out_log_loss(system: RatingSystem[Any], history: History) -> float:
    """One pass: the system learns every game and is scored on the held-out ones.

    The tuner's hot loop: it sums only the log loss (as PredictionMetrics does, with
    the same floor), not the lab's other scores, since it runs a hundred times or more.
    """
    states = [system.initial()] * history.ratings
    update = system.update
    predict_and_update = getattr(system, "predict_and_update", None)
    if predict_and_update is None:
        expected = system.expected_score

        def predict_and_update(a: Any, b: Any, score: float, at: float) -> tuple[float, Any, Any]:
            return (expected(a, b, at), *update(a, b, score, at))

    log = math.log
    total, scored = 0.0, 0
    for a, b, score, at, kind in history.rows:
        if kind:
            p, states[a], states[b] = predict_and_update(states[a], states[b], score, at)
            total -= score * log(max(p, EPSILON)) + (1.0 - score) * log(max(1.0 - p, EPSILON))
            scored += 1
        else:
            states[a], states[b] = update(states[a], states[b], score, at)
    return total / scored if scored else math.nan


@dataclass(frozen=True)
class SystemTuning:
    name: str
    start: dict[str, float]
    search: SearchResult


def tune_system(
    system: TunableSystem, history: History, *, rounds: int = DEFAULT_ROUNDS
) -> SystemTuning:
    start = system.start()
    search = coordinate_search(
        lambda point: held_out_log_loss(system.build(point), history),
        start,
        system.dimensions,
        rounds=rounds,
        line_evaluations=LINE_EVALUATIONS,
        refine_width=REFINE_WIDTH,
        refine_evaluations=REFINE_EVALUATIONS,
    )
    return SystemTuning(system.name, start, search)


# The history a forked worker tunes on: set in the parent before the fork, so
# children share it copy-on-write instead of receiving a pickled copy.
_SHARED_HISTORY: History | None = None


def _tune_in_child(arguments: tuple[str, int]) -> SystemTuning:
    name, rounds = arguments
    assert _SHARED_HISTORY is not None
    system = next(s for s in SYSTEMS if s.name == name)
    return tune_system(system, _SHARED_HISTORY, rounds=rounds)


def tune(
    *,
    systems: Sequence[str] = SYSTEM_NAMES,
    held_out: float = DEFAULT_HELD_OUT,
    since: datetime | None = None,
    rounds: int = DEFAULT_ROUNDS,
    processes: int | None = None,
) -> tuple[History, list[SystemTuning]]:
    """Tune the named systems on the stored history; results in the order asked.

    With more than one process, the systems are tuned in forked children. They only
    compute on the history read before the fork and leave through os._exit, so the
    database connections they inherit are never used or closed by them.
    """
    global _SHARED_HISTORY
    unknown = set(systems) - set(SYSTEM_NAMES)
    if unknown:
        raise ValueError(
            f"unknown rating system {', '.join(sorted(unknown))}; choose from "
            f"{', '.join(SYSTEM_NAMES)}"
        )
    history = load_history(held_out=held_out, since=since)
    processes = min(len(systems), processes or os.cpu_count() or 1)
    if processes <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        by_name = {s.name: s for s in SYSTEMS}
        return history, [tune_system(by_name[name], history, rounds=rounds) for name in systems]
    _SHARED_HISTORY = history
    try:
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            # The slowest systems first, so the last to finish is a quick one.
            order = sorted(systems, key=lambda n: n not in ("glicko", "glicko2"))
            results = dict(
                zip(order, pool.map(_tune_in_child, [(n, rounds) for n in order], 1), strict=True)
            )
    finally:
        _SHARED_HISTORY = None
    return history, [results[name] for name in systems]


def glicko_settings(point: Mapping[str, float]) -> dict[str, float]:
    """The settings (environment variables) that make the site run `point`."""
    return {GLICKO_SETTINGS[name]: value for name, value in point.items()}


@dataclass(frozen=True)
class HeldOutCalibration:
    """The held-out games' predictions as the model gives them and as the site would
    have shown them: calibrated by a temperature refitted at every refresh on the
    latest predictions before it (RollingCalibration), never on a game it shows."""

    model: PredictionMetrics
    shown: PredictionMetrics
    temperatures: tuple[float, float]  # in force at the first and the last held-out game
    hindsight: TemperatureFit  # what the held-out games alone would have wanted


def held_out_calibration(
    system: RatingSystem[Any], history: History, *, refit_every: float
) -> HeldOutCalibration:
    """One pass predicting every game before it is learned, with the calibration the
    site would have had at each game's time (refitted every `refit_every` seconds)."""
    rolling = RollingCalibration(refit_every)
    model, shown, later = PredictionMetrics(), PredictionMetrics(), LogitHistogram()
    first = last = None
    states = [system.initial()] * history.ratings
    for a, b, score, at, kind in history.rows:
        temperature = rolling.at(at)
        state_a, state_b = states[a], states[b]
        probability = system.expected_score(state_a, state_b, at)
        if kind:
            first, last = first or temperature, temperature
            model.add(probability, score)
            shown.add(rolling.shown(probability), score)
            later.add(probability, score)
        rolling.learn(probability, score)
        states[a], states[b] = system.update(state_a, state_b, score, at)
    return HeldOutCalibration(
        model, shown, (first or 1.0, last or 1.0), fit_temperature(later.bins())
    )
