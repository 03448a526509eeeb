"""The periodic refresh as one step (docs/architecture.md#from-a-replay-to-a-page, step 3),
for beat's task and the command line alike: the calibration of shown chances, decay,
character matchups, site statistics, and on a new site the lab's first evaluation, whose
own (daily) schedule would first run a day later."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime

from django.utils import timezone

from matches.selectors.lab import lab_has_scored_games
from matches.selectors.monitoring import LAST_REFRESH, LAST_REFRESH_STEPS
from matches.services.calibration import refit_calibration
from matches.services.character_matchups import rebuild_character_matchups
from matches.services.evaluation import refresh_lab
from matches.services.patches import assign_patches
from matches.services.rating.decay import decay_all_ratings
from matches.services.seasons import refresh_seasons
from matches.services.site_statistic import store_statistic, timed_run
from matches.services.statistics import recompute_site_statistics
from matches.services.win_trading import flag_rings
from web.generation import bump_generation

logger = logging.getLogger(__name__)


def refresh_site(*, evaluate_lab: Callable[[], object] = refresh_lab) -> None:
    """Refresh the derived tables; while the lab has no report with games, evaluate it
    with `evaluate_lab` (at once by default; the task sends it to a worker instead)."""
    with timed_run(LAST_REFRESH):
        refit_calibration()
        refresh_derived_tables()  # bumps the generation: pages show the new calibration too
    if not lab_has_scored_games():
        evaluate_lab()


def refresh_derived_tables(now: datetime | None = None) -> dict[str, float]:
    """Decay idle ratings up to `now`, give the new games their patch, rebuild the
    character matchups, recompute every site statistic and the season ladders (archiving
    the seasons that have ended), flag suspected win-trading rings for review, then bump
    the cache generation. Each step's seconds are logged and stored (LAST_REFRESH_STEPS,
    read by /metrics) so that an operator sees which one is slow; they are returned too."""
    now = now or timezone.now()
    steps: dict[str, Callable[[], object]] = {
        "decay": lambda: decay_all_ratings(now),
        "patches": assign_patches,
        "character_matchups": rebuild_character_matchups,
        "statistics": lambda: recompute_site_statistics(now),
        "seasons": lambda: refresh_seasons(now),
        "win_trading": lambda: flag_rings(now),
    }
    seconds = {}
    for name, step in steps.items():
        started = time.perf_counter()
        step()
        seconds[name] = time.perf_counter() - started
        logger.info("refresh step %s took %.2f s", name, seconds[name])
    store_statistic(LAST_REFRESH_STEPS, seconds)
    bump_generation()
    return seconds
