"""Scores for probabilistic predictions, so rating systems are chosen on data.

`PredictionMetrics` is fed one (predicted P(A wins), A's score) pair at a time while
a history is replayed, and can be read at any point:

- log loss: the mean of -[s ln p + (1 - s) ln(1 - p)], with p and 1 - p floored at
  epsilon so one confident miss costs a lot but not infinity;
- Brier score: the mean of (p - s)^2;
- accuracy: how often the favourite won, a coin-flip prediction or a draw counting half;
- calibration: per bin of predicted probability, how often the side actually won.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, NamedTuple


class CalibrationBin(NamedTuple):
    """Predictions in [low, high): how many, their mean, and A's mean score."""

    low: float
    high: float
    count: int
    mean_predicted: float
    observed: float


def json_number(value: float) -> float | None:
    """JSON (and PostgreSQL's jsonb) has no NaN: an empty bin or table reads as null."""
    return None if math.isnan(value) else value


def calibration_rows(bins: Iterable[CalibrationBin]) -> list[dict[str, Any]]:
    """Calibration bins as JSON-ready rows, as the lab and the calibration store them."""
    return [
        {
            "low": bin_.low,
            "high": bin_.high,
            "games": bin_.count,
            "predicted": json_number(bin_.mean_predicted),
            "observed": json_number(bin_.observed),
        }
        for bin_ in bins
    ]


class PredictionMetrics:
    """A streaming accumulator of log loss, Brier score, accuracy and calibration."""

    __slots__ = (
        "_bin_counts",
        "_bin_predicted",
        "_bin_scores",
        "_brier",
        "_correct",
        "_log_loss",
        "bins",
        "count",
        "epsilon",
    )

    def __init__(self, bins: int = 10, epsilon: float = 1e-15) -> None:
        self.bins = bins
        self.epsilon = epsilon
        self.count = 0
        self._log_loss = 0.0
        self._brier = 0.0
        self._correct = 0.0
        self._bin_counts = [0] * bins
        self._bin_predicted = [0.0] * bins
        self._bin_scores = [0.0] * bins

    def add(self, probability: float, score: float) -> None:
        """Record one prediction; score is A's result (1 win, 0 loss, 0.5 draw)."""
        win = max(probability, self.epsilon)
        loss = max(1.0 - probability, self.epsilon)
        self.count += 1
        self._log_loss -= score * math.log(win) + (1.0 - score) * math.log(loss)
        self._brier += (probability - score) ** 2
        if probability == 0.5 or score == 0.5:
            self._correct += 0.5
        elif (probability > 0.5) == (score > 0.5):
            self._correct += 1.0
        index = min(int(probability * self.bins), self.bins - 1)
        self._bin_counts[index] += 1
        self._bin_predicted[index] += probability
        self._bin_scores[index] += score

    def _mean(self, total: float) -> float:
        return total / self.count if self.count else math.nan

    @property
    def log_loss(self) -> float:
        return self._mean(self._log_loss)

    @property
    def brier(self) -> float:
        return self._mean(self._brier)

    @property
    def accuracy(self) -> float:
        return self._mean(self._correct)

    def calibration(self) -> list[CalibrationBin]:
        """Every bin in order; an empty bin has NaN means."""
        table = []
        for index, count in enumerate(self._bin_counts):
            table.append(
                CalibrationBin(
                    index / self.bins,
                    (index + 1) / self.bins,
                    count,
                    self._bin_predicted[index] / count if count else math.nan,
                    self._bin_scores[index] / count if count else math.nan,
                )
            )
        return table

    def summary(self) -> dict[str, float]:
        """The headline numbers, for a report row."""
        return {
            "games": float(self.count),
            "log_loss": self.log_loss,
            "brier": self.brier,
            "accuracy": self.accuracy,
        }
