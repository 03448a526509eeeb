"""Calibration of shown win probabilities (docs/rating-model.md#calibration).

A model's probability p is shown as sigmoid(logit(p) / T): one temperature T fitted by
maximum likelihood on games each predicted before it was learned. T > 1 softens an
overconfident model, T < 1 sharpens a timid one, T = 1 changes nothing; the map is
monotone and keeps 50% at 50%, so a favourite stays the favourite.

Predictions are kept as a histogram of their logits (bins of 0.01), which makes the
fit cost nothing per game beyond one dictionary update and keeps memory flat. Pure
Python, no Django.

The model's overconfidence is not a constant: it shrinks as ratings settle (on a
simulated season the best temperature falls from 2.2 in its first quarter to 1.1 in
its last, and on a young site from 5 to 2 within a day). So the site refits the
temperature at every refresh on its latest predictions, and `RollingCalibration`
replays exactly that to judge it: one temperature fitted once is 0.03 to 0.06 off in
some deciles of later games; refitted hourly, within 0.015.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from matches.ratings.metrics import CalibrationBin

BIN_WIDTH = 0.01
MAX_LOGIT = 15.0  # about 1 in 3 million: more certain predictions count as this certain
# The fit uses only the latest games' predictions, since the chances shown are those
# of today's ratings: the latest 10% of the games, never fewer than 2,000 when there
# are that many. A share, not a fixed count, keeps a big site's fit steady.
RECENT_SHARE = 0.1
RECENT_MIN_GAMES = 2_000
# Fewer predictions than this fit nothing: the model's chances are shown as they are.
MIN_FIT_GAMES = 100
# The fitted temperature stays within these. Below, the data are degenerate (every
# favourite won), not evidence of a timid model; above, the model knows nothing (a
# young site) and its chances are shown as near coin flips, as they deserve.
TEMPERATURE_RANGE = (0.25, 1000.0)


def logit(probability: float) -> float:
    p = min(max(probability, 1e-12), 1.0 - 1e-12)
    return max(-MAX_LOGIT, min(MAX_LOGIT, math.log(p / (1.0 - p))))


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def calibrated(probability: float, temperature: float) -> float:
    """The shown probability for a model probability."""
    if temperature == 1.0:
        return probability
    return sigmoid(logit(probability) / temperature)


def recent_games(games: int) -> int:
    """How many of the latest of `games` predictions the calibration is fitted on."""
    return min(games, max(round(games * RECENT_SHARE), RECENT_MIN_GAMES))


class LogitBin(NamedTuple):
    mean_logit: float
    games: int
    wins: float  # the predicted side's score, summed (a draw counts half)


def chance_logits(probabilities: np.ndarray) -> np.ndarray:
    """`logit` of many probabilities at once, a certain 0 or 1 counted as ±MAX_LOGIT."""
    with np.errstate(divide="ignore"):
        logits = np.log(probabilities) - np.log1p(-probabilities)
    return np.clip(logits, -MAX_LOGIT, MAX_LOGIT)


def logit_bins(logits: np.ndarray, scores: np.ndarray) -> list[LogitBin]:
    """Predictions at these logits, with the predicted side's scores, in LogitHistogram's
    bins; each bin's mean logit within ±MAX_LOGIT."""
    cells, position = np.unique(np.round(logits / BIN_WIDTH), return_inverse=True)
    games = np.bincount(position, minlength=len(cells))
    wins = np.bincount(position, weights=scores, minlength=len(cells))
    totals = np.bincount(position, weights=logits, minlength=len(cells))
    means = np.clip(totals / np.maximum(games, 1), -MAX_LOGIT, MAX_LOGIT)
    return [
        LogitBin(mean, count, won)
        for mean, count, won in zip(means.tolist(), games.tolist(), wins.tolist(), strict=True)
    ]


class LogitHistogram:
    """Predictions grouped by logit: (games, wins, sum of logits) per bin."""

    __slots__ = ("_bins",)

    def __init__(self) -> None:
        self._bins: dict[int, list[float]] = {}

    def add(self, probability: float, score: float) -> None:
        self.add_logit(logit(probability), score)

    def add_logit(self, x: float, score: float, count: int = 1) -> None:
        """Add `count` predictions at logit x (a negative count takes them out again)."""
        cell = self._bins.get(key := round(x / BIN_WIDTH))
        if cell is None:
            cell = self._bins[key] = [0, 0.0, 0.0]
        cell[0] += count
        cell[1] += score * count
        cell[2] += x * count
        if not cell[0]:
            del self._bins[key]

    def bins(self) -> list[LogitBin]:
        return [
            LogitBin(total / games, int(games), wins) for games, wins, total in self._bins.values()
        ]

    @property
    def games(self) -> int:
        return int(sum(cell[0] for cell in self._bins.values()))


class TemperatureFit(NamedTuple):
    temperature: float
    games: int
    log_loss_before: float
    log_loss_after: float


def _log_loss(bins: list[LogitBin], scale: float) -> float:
    total, games = 0.0, 0
    for x, n, wins in bins:
        z = scale * x
        # -log sigmoid(z) and -log sigmoid(-z), finite for any z
        loss_win = math.log1p(math.exp(-z)) if z > -30 else -z
        loss_lose = math.log1p(math.exp(z)) if z < 30 else z
        total += wins * loss_win + (n - wins) * loss_lose
        games += n
    return total / games if games else math.nan


def log_loss(bins: Iterable[LogitBin], temperature: float = 1.0) -> float:
    """The log loss of these predictions as shown under `temperature`."""
    return _log_loss(list(bins), 1.0 / temperature)


def fit_temperature(bins: Iterable[LogitBin], *, steps: int = 50) -> TemperatureFit:
    """The temperature with the lowest log loss on these predictions (Newton on 1/T).

    The log loss is convex in the scale 1/T, so Newton from 1 converges; a step is
    halved while it would raise the loss. With no games, or predictions that carry
    no information (all at 50%), T stays 1; it is kept within TEMPERATURE_RANGE.
    """
    bins = [b for b in bins if b.games]
    before = _log_loss(bins, 1.0)
    scale = 1.0
    for _ in range(steps):
        slope = curvature = 0.0
        for x, n, wins in bins:
            p = sigmoid(scale * x)
            slope += x * (n * p - wins)
            curvature += x * x * n * p * (1.0 - p)
        if curvature <= 0.0:
            break
        step = slope / curvature
        current = _log_loss(bins, scale)
        while scale - step <= 0.0 or _log_loss(bins, scale - step) > current + 1e-15:
            step /= 2
            if abs(step) < 1e-12:
                break
        scale -= step
        if abs(step) < 1e-9:
            break
    low, high = TEMPERATURE_RANGE
    scale = min(max(scale, 1.0 / high), 1.0 / low)
    games = sum(b.games for b in bins)
    return TemperatureFit(1.0 / scale, games, before, _log_loss(bins, scale))


def reliability(
    bins: Iterable[LogitBin], temperature: float = 1.0, count: int = 10
) -> list[CalibrationBin]:
    """Predictions (as shown under `temperature`) in `count` equal bins of probability,
    with how often the predicted side won: a reliability diagram's points."""
    games, predicted, observed = [0] * count, [0.0] * count, [0.0] * count
    for x, n, wins in bins:
        p = sigmoid(x / temperature)
        index = min(int(p * count), count - 1)
        games[index] += n
        predicted[index] += p * n
        observed[index] += wins
    return [
        CalibrationBin(
            i / count,
            (i + 1) / count,
            games[i],
            predicted[i] / games[i] if games[i] else math.nan,
            observed[i] / games[i] if games[i] else math.nan,
        )
        for i in range(count)
    ]


class RollingCalibration:
    """The site's calibration replayed over a history: fed each game's model probability
    in time order, it refits the temperature at every `refit_every` seconds boundary on
    the latest `recent_games` of the predictions so far (as each refresh does), and
    `shown` gives a probability as the site would have shown it at that moment.

    Memory: the logits and scores of every prediction (two floats a game); time: a
    sliding histogram, so a refit costs its bins, not its games.
    """

    __slots__ = ("_logits", "_period", "_scores", "_start", "_window", "refit_every", "temperature")

    def __init__(self, refit_every: float) -> None:
        if refit_every <= 0:
            raise ValueError(f"refit_every must be positive, got {refit_every}")
        self.refit_every = refit_every
        self.temperature = 1.0
        self._logits: list[float] = []
        self._scores: list[float] = []
        self._window = LogitHistogram()
        self._start = 0  # the first prediction in the window
        self._period: int | None = None

    def at(self, moment: float) -> float:
        """Move the clock to `moment` (never backwards); refit if a boundary was crossed.
        Returns the temperature in force."""
        period = int(moment // self.refit_every)
        if self._period is None:
            self._period = period
        elif period > self._period:
            self._period = period
            self._refit()
        return self.temperature

    def shown(self, probability: float) -> float:
        return calibrated(probability, self.temperature)

    def learn(self, probability: float, score: float) -> None:
        """Record the model's prediction of a game (made before it was learned)."""
        x = logit(probability)
        self._logits.append(x)
        self._scores.append(score)
        self._window.add_logit(x, score)

    def _refit(self) -> None:
        games = len(self._logits)
        if games < MIN_FIT_GAMES:
            return
        # recent_games never shrinks the window's start: it only moves forward.
        start = games - recent_games(games)
        for index in range(self._start, start):
            self._window.add_logit(self._logits[index], self._scores[index], -1)
        self._start = max(self._start, start)
        self.temperature = fit_temperature(self._window.bins()).temperature
