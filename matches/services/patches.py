"""Which patch each game belongs to (docs/rating-model.md#patches): `Match.patch`, derived
from the game's version and time, so that the refresh's aggregates group by a column.

A game belongs to the patch that lists its version; a game without a version, or with
one no patch lists, to the latest patch live at its time; a game before every patch to
none. Games are assigned in a data step after they are stored (`assign_patches`, run by
the refresh before it aggregates): it reads only the games above the highest match id
assigned so far, through the primary key. A change to the patches (the admin: `patches_changed`)
assigns every game again, writing only the games whose patch changes, and rebuilds the
character matchups and statistics (queued as a task, not run in the request).
"""

from __future__ import annotations

from celery import current_app
from django.db import connection, transaction
from django.utils import timezone

from matches.models import Match, Patch, SiteStatistic
from matches.services.game_counts import count_games
from matches.services.locks import INGEST_WRITER_LOCK, acquire_transaction_lock
from web.generation import bump_generation

# The highest match id whose patch is assigned (a SiteStatistic row, not shown).
ASSIGNED_THROUGH = "patches_assigned_through"
# Sent by name: the tasks module imports the services, never the other way round.
PATCHES_CHANGED_TASK = "matches.tasks.reassign_patches"

# Hand-written: an UPDATE ... FROM a join against the patches' versions and their time
# spans (one window over a few rows), which the ORM cannot say in one statement.
_ASSIGN_SQL = f"""
    WITH versions AS (
        SELECT UNNEST(versions) AS version, id FROM {Patch._meta.db_table}
    ), spans AS (
        SELECT id, live_at AS starts, LEAD(live_at) OVER (ORDER BY live_at) AS ends
        FROM {Patch._meta.db_table}
    ), target AS (
        SELECT m.id, COALESCE(v.id, s.id) AS patch_id
        FROM {Match._meta.db_table} m
        LEFT JOIN versions v ON m.version <> '' AND v.version = m.version
        LEFT JOIN spans s ON m.played_at >= s.starts
             AND (s.ends IS NULL OR m.played_at < s.ends)
        WHERE m.id > %(after)s AND m.id <= %(through)s
    )
    UPDATE {Match._meta.db_table} m SET patch_id = t.patch_id
    FROM target t
    WHERE m.id = t.id AND m.patch_id IS DISTINCT FROM t.patch_id
"""


@transaction.atomic
def assign_patches(*, every_game: bool = False) -> int:
    """Set the patch of the games stored since the last assignment (`every_game`: of all
    games) and count them (game_counts); returns how many changed. Holds the ingest
    writer's lock, so no game below the highest id read is still uncommitted."""
    acquire_transaction_lock(INGEST_WRITER_LOCK, wait=True)
    through = Match.objects.order_by("-id").values_list("id", flat=True).first() or 0
    mark = SiteStatistic.objects.select_for_update().filter(key=ASSIGNED_THROUGH).first()
    after = 0 if every_game or mark is None else int(mark.data["match_id"])
    changed = 0
    if through > after:
        with connection.cursor() as cursor:
            cursor.execute(_ASSIGN_SQL, {"after": after, "through": through})
            changed = cursor.rowcount
    count_games(after, through, afresh=every_game)
    # When every game was last placed anew: the kept sums grouped by patch are stale.
    placed_anew = timezone.now().isoformat() if every_game else None
    if not every_game and mark is not None:
        placed_anew = mark.data.get("every_game_at")
    SiteStatistic.objects.update_or_create(
        key=ASSIGNED_THROUGH,
        defaults={
            "data": {"match_id": through, "every_game_at": placed_anew},
            "computed_at": timezone.now(),
        },
    )
    return changed


def patches_changed() -> None:
    """After an operator added, edited or deleted a patch: queue the reassignment of every
    game at commit, and show the new patch list at once."""
    transaction.on_commit(bump_generation)
    transaction.on_commit(current_app.tasks[PATCHES_CHANGED_TASK].delay)
