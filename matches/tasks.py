"""Celery tasks: a few lines each around the services
(docs/architecture.md#from-a-replay-to-a-page).

Beat sends all four on the schedule in settings (CELERY_BEAT_SCHEDULE); a pull that
stored new games also sends ``rate_matches`` once its transaction has committed, and
follows a live feed with more pulls until the next beat (CELERY_PULL_FOLLOW_PAUSE), and a
refresh sends ``refresh_lab`` while the lab has no report with games yet;
``recompute_after_flag_changes`` is queued by an operator's hidden or cheater flag
change (matches.services.flags), ``reassign_patches`` by an operator's change to the
patches (matches.services.patches), ``ingest_waiting_replays`` by a character's save
(matches.services.roster).
Tasks are acknowledged late (settings), so a worker that dies mid-task has the task
delivered again; every task is safe to run twice or side by side. Every task has a
soft and a hard time limit (CELERY_TASK_ANNOTATIONS in settings), so a stuck one is
stopped and sent again by beat instead of holding a worker for good.
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from matches.services.evaluation import refresh_lab as refresh_lab_service
from matches.services.flags import recompute_after_flag_changes as recompute_after_flags
from matches.services.kept_replays import ingest_kept_replays
from matches.services.patches import reassign_after_change
from matches.services.rating.incremental import ClaimLost, rate_pending_matches
from matches.services.refresh import refresh_derived_tables
from matches.services.refresh import refresh_site as refresh_site_service
from matches.sources.pulling import DATABASE_UNAVAILABLE, follow_enabled_sources

# The database restarting or a concurrent writer: worth another try a little later.
_RETRY = {"retry_backoff": 2, "retry_backoff_max": 60, "retry_jitter": True, "max_retries": 8}


@shared_task(autoretry_for=DATABASE_UNAVAILABLE, **_RETRY)
def pull_replays() -> int:
    """Pull every enabled source (and follow a live one); returns how many new games were
    stored. Each pull that stored games has them rated at once, not at the next beat.
    Replays waiting for a character that exists now are stored first: the task a
    character's save queues does it, and a pull repeats it in case that task was lost."""
    ingest_waiting_replays()
    return follow_enabled_sources(
        seconds=settings.CELERY_PULL_FOLLOW_SECONDS,
        pause=settings.CELERY_PULL_FOLLOW_PAUSE,
        stored=rate_matches.delay_on_commit,
    )


@shared_task(autoretry_for=(*DATABASE_UNAVAILABLE, ClaimLost), **_RETRY)
def rate_matches() -> int:
    """Rate every pending match; returns how many were rated (0 when another writer is busy)."""
    return rate_pending_matches().rated


@shared_task(autoretry_for=DATABASE_UNAVAILABLE, **_RETRY)
def ingest_waiting_replays() -> int:
    """Store the replays waiting for a character the roster now has, and have them rated;
    returns how many games were new. Queued when a character is saved
    (matches.services.roster)."""
    new = ingest_kept_replays(waiting_only=True).new
    if new:
        rate_matches.delay()
    return new


# Registered under its first name, which beat's schedule (settings) and messages already
# queued carry.
@shared_task(name="matches.tasks.refresh_statistics", autoretry_for=DATABASE_UNAVAILABLE, **_RETRY)
def refresh_site() -> None:
    """Refit the calibration, decay idle ratings, rebuild character matchups, recompute the
    site statistics; on a new site, also evaluate the lab, whose own (daily) beat entry
    would first run a day later."""
    refresh_site_service(evaluate_lab=refresh_lab.delay)


@shared_task(autoretry_for=DATABASE_UNAVAILABLE, **_RETRY)
def refresh_lab() -> None:
    """Re-evaluate every rating system on the stored history for the lab page."""
    refresh_lab_service()


@shared_task(autoretry_for=DATABASE_UNAVAILABLE, **_RETRY)
def recompute_after_flag_changes() -> int:
    """Recompute every rating after hidden or cheater flags changed; returns how many games
    were rated (0 when another delivery of the task had already done it)."""
    run = recompute_after_flags()
    return 0 if run is None else run.rated


@shared_task(autoretry_for=DATABASE_UNAVAILABLE, **_RETRY)
def reassign_patches(change: dict[str, list] | None = None) -> None:
    """After an operator changed the patches: the patch again of the games the `change`
    can move (every game's without it: a message queued before it was sent), then the
    tables that group by it (matches.services.patches)."""
    reassign_after_change(change)
    refresh_derived_tables()
