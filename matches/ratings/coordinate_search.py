"""Minimising a loss over a few continuous parameters: coordinate search with
golden-section line searches (what the tuner uses to choose rating constants).

Each parameter lies in a range, searched on a linear or logarithmic scale. A round
runs one golden-section search per parameter with the others held; rounds repeat
until one changes the loss by less than `tolerance`. A point is never replaced by a
worse one, so the result is at least as good as the start. Pure Python.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

INVERSE_PHI = (math.sqrt(5.0) - 1.0) / 2.0  # 0.618...


@dataclass(frozen=True)
class Dimension:
    """One parameter: its name, its range, and whether to search it on a log scale."""

    name: str
    low: float
    high: float
    log: bool = False

    def from_unit(self, unit: float) -> float:
        if self.log:
            return math.exp(math.log(self.low) + unit * (math.log(self.high) - math.log(self.low)))
        return self.low + unit * (self.high - self.low)

    def to_unit(self, value: float) -> float:
        """Where `value` lies in the range, on the dimension's scale (clipped to [0, 1])."""
        if self.log:
            unit = math.log(value / self.low) / math.log(self.high / self.low) if value > 0 else 0.0
        else:
            unit = (value - self.low) / (self.high - self.low)
        return min(max(unit, 0.0), 1.0)


def golden_section(
    loss: Callable[[float], float], low: float, high: float, *, evaluations: int
) -> tuple[float, float]:
    """(x, loss(x)) near the minimum of a unimodal `loss` on [low, high], from at most
    `evaluations` calls (each call after the first two shrinks the bracket by 0.618)."""
    a, b = low, high
    c, d = b - INVERSE_PHI * (b - a), a + INVERSE_PHI * (b - a)
    fc, fd = loss(c), loss(d)
    for _ in range(max(0, evaluations - 2)):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - INVERSE_PHI * (b - a)
            fc = loss(c)
        else:
            a, c, fc = c, d, fd
            d = a + INVERSE_PHI * (b - a)
            fd = loss(d)
    return (c, fc) if fc <= fd else (d, fd)


@dataclass(frozen=True)
class SearchResult:
    best: dict[str, float]
    loss: float
    start_loss: float
    evaluations: int
    rounds: int


def coordinate_search(
    loss: Callable[[Mapping[str, float]], float],
    start: Mapping[str, float],
    dimensions: Sequence[Dimension],
    *,
    rounds: int = 3,
    line_evaluations: int = 10,
    tolerance: float = 1e-5,
    refine_width: float = 1.0,
    refine_evaluations: int | None = None,
) -> SearchResult:
    """The best parameters found from `start`: a golden-section search per dimension in
    turn (its range on the dimension's scale), kept only where it lowers the loss.

    The first round searches each whole range. Later rounds only refine: each searches
    a bracket `refine_width` wide (as a share of the range) around the current value,
    with `refine_evaluations` calls (default `line_evaluations`), which saves passes
    once the first round has found the right region. A dimension along whose whole
    first line the loss moved by less than `tolerance` makes no difference to these
    data and is left where it is in later rounds."""
    evaluations = 0
    seen: list[float] = []  # the losses of the current line search

    def counted(point: Mapping[str, float]) -> float:
        nonlocal evaluations
        evaluations += 1
        value = loss(point)
        seen.append(value)
        return value

    best = dict(start)
    best_loss = start_loss = counted(best)
    flat: set[str] = set()
    rounds_run = 0
    while rounds_run < rounds:
        rounds_run += 1
        round_start = best_loss
        for dimension in dimensions:
            if dimension.name in flat:
                continue
            held = dict(best)
            seen[:] = [best_loss]
            low, high, calls = 0.0, 1.0, line_evaluations
            if rounds_run > 1 and refine_width < 1.0:
                centre = dimension.to_unit(held[dimension.name])
                low = min(max(centre - refine_width / 2, 0.0), 1.0 - refine_width)
                high = low + refine_width
                calls = refine_evaluations or line_evaluations
            unit, value = golden_section(
                lambda u, d=dimension, held=held: counted({**held, d.name: d.from_unit(u)}),
                low,
                high,
                evaluations=calls,
            )
            if rounds_run == 1 and max(seen) - min(seen) < tolerance:
                flat.add(dimension.name)
            if value < best_loss:
                best, best_loss = {**held, dimension.name: dimension.from_unit(unit)}, value
        if round_start - best_loss < tolerance:
            break
    return SearchResult(best, best_loss, start_loss, evaluations, rounds_run)
