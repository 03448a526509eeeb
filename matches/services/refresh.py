"""The periodic refresh as one step (docs/architecture.md#from-a-replay-to-a-page, step 3),
for beat's task and the command line alike: the calibration of shown chances, decay,
character matchups, site statistics, and on a new site the lab's first evaluation, whose
own (daily) schedule would first run a day later."""

from __future__ import annotations

from collections.abc import Callable

from matches.selectors.lab import lab_has_scored_games
from matches.services.calibration import refit_calibration
from matches.services.evaluation import refresh_lab
from matches.services.statistics import refresh_statistics


def refresh_site(*, evaluate_lab: Callable[[], object] = refresh_lab) -> None:
    """Refresh the derived tables; while the lab has no report with games, evaluate it
    with `evaluate_lab` (at once by default; the task sends it to a worker instead)."""
    refit_calibration()
    refresh_statistics()  # bumps the generation: pages show the new calibration too
    if not lab_has_scored_games():
        evaluate_lab()
