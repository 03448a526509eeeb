"""The periodic refresh as one step (docs/architecture.md#from-a-replay-to-a-page, step 3),
for beat's task and the command line alike: the calibration of shown chances, decay,
character matchups, site statistics, and on a new site the lab's first evaluation, whose
own (daily) schedule would first run a day later."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.utils import timezone

from matches.selectors.lab import lab_has_scored_games
from matches.selectors.monitoring import LAST_REFRESH
from matches.services.calibration import refit_calibration
from matches.services.character_matchups import rebuild_character_matchups
from matches.services.evaluation import refresh_lab
from matches.services.patches import assign_patches
from matches.services.rating.decay import decay_all_ratings
from matches.services.seasons import refresh_seasons
from matches.services.site_statistic import timed_run
from matches.services.statistics import recompute_site_statistics
from matches.services.win_trading import flag_rings
from web.generation import bump_generation


def refresh_site(*, evaluate_lab: Callable[[], object] = refresh_lab) -> None:
    """Refresh the derived tables; while the lab has no report with games, evaluate it
    with `evaluate_lab` (at once by default; the task sends it to a worker instead)."""
    with timed_run(LAST_REFRESH):
        refit_calibration()
        refresh_derived_tables()  # bumps the generation: pages show the new calibration too
    if not lab_has_scored_games():
        evaluate_lab()


def refresh_derived_tables(now: datetime | None = None) -> None:
    """Decay idle ratings up to `now`, give the new games their patch, rebuild the
    character matchups, recompute every site statistic and the season ladders (archiving
    the seasons that have ended), flag suspected win-trading rings for review, then bump
    the cache generation."""
    now = now or timezone.now()
    decay_all_ratings(now)
    assign_patches()
    rebuild_character_matchups()
    recompute_site_statistics(now)
    refresh_seasons(now)
    flag_rings(now)
    bump_generation()
