"""Which patch each game belongs to (docs/rating-model.md#patches): `Match.patch`, derived
from the game's version and time, so that the refresh's aggregates group by a column.

A game belongs to the patch that lists its version; a game without a version, or with
one no patch lists, to the latest patch live at its time; a game before every patch to
none. Games are assigned in a data step after they are stored (`assign_patches`, run by
the refresh before it aggregates): it reads only the games above the highest match id
assigned so far, through the primary key. A change to the patches (the admin, inside
`changing_patches`) is compared with the patches before it (`moved_by`): only the games
of a version whose patch changed, or played while the latest patch live changed, can
move, and the task queued at commit reads only those again (`reassign_after_change`),
writing the ones whose patch changes and moving them between the kept counts, then
rebuilds the character matchups and statistics. `assign_patches(every_game=True)` still
places every game again (what a task queued without the change does).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

from celery import current_app
from django.db import connection, transaction
from django.utils import timezone

from matches.models import Match, Patch, SiteStatistic
from matches.services.game_counts import count_games, move_counted_games
from matches.services.locks import (
    INGEST_WRITER_LOCK,
    PATCH_CHANGE_LOCK,
    acquire_transaction_lock,
)
from web.generation import bump_generation

# The highest match id whose patch is assigned (a SiteStatistic row, not shown).
ASSIGNED_THROUGH = "patches_assigned_through"
# Sent by name: the tasks module imports the services, never the other way round.
PATCHES_CHANGED_TASK = "matches.tasks.reassign_patches"

# Each game's patch: a join against the patches' versions and their time spans (one
# window over a few rows), which the ORM cannot say in one statement. `{games}` picks
# the games to read.
_TARGET_SQL = f"""
    WITH versions AS (
        SELECT UNNEST(versions) AS version, id FROM {Patch._meta.db_table}
    ), spans AS (
        SELECT id, live_at AS starts, LEAD(live_at) OVER (ORDER BY live_at) AS ends
        FROM {Patch._meta.db_table}
    ), target AS (
        SELECT m.id, m.patch_id AS was, COALESCE(v.id, s.id) AS patch_id
        FROM {Match._meta.db_table} m
        LEFT JOIN versions v ON m.version <> '' AND v.version = m.version
        LEFT JOIN spans s ON m.played_at >= s.starts
             AND (s.ends IS NULL OR m.played_at < s.ends)
        WHERE m.id <= %(through)s AND ({{games}})
    )
"""
_ASSIGN_SQL = f"""
    {_TARGET_SQL}
    UPDATE {Match._meta.db_table} m SET patch_id = t.patch_id
    FROM target t
    WHERE m.id = t.id AND m.patch_id IS DISTINCT FROM t.patch_id
"""
# The same for the games a change can move, returning what move_counted_games reads.
_MOVE_SQL = f"""{_ASSIGN_SQL}
    RETURNING m.played_at, t.was, m.patch_id, m.character_a_id, m.character_b_id,
              m.player_a_id, m.player_b_id
"""


@dataclass(frozen=True)
class Moved:
    """What a change to the patches can move: the games of `versions` (whose patch
    changed) and those played within `spans` ([start, end), end None: open), during
    which the latest patch live changed."""

    versions: tuple[str, ...] = ()
    spans: tuple[tuple[datetime, datetime | None], ...] = ()

    def as_json(self) -> dict[str, list]:
        """For the task's message."""
        return {
            "versions": list(self.versions),
            "spans": [
                [start.isoformat(), None if end is None else end.isoformat()]
                for start, end in self.spans
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, list]) -> Moved:
        return cls(
            versions=tuple(data["versions"]),
            spans=tuple(
                (datetime.fromisoformat(start), end and datetime.fromisoformat(end))
                for start, end in data["spans"]
            ),
        )

    def games_sql(self) -> tuple[str, dict[str, object]]:
        """A condition on `m` selecting these games (through the version's partial index
        and played_at's BRIN), and its parameters."""
        conditions, parameters = [], {}
        if self.versions:
            conditions.append("(m.version <> '' AND m.version = ANY(%(versions)s))")
            parameters["versions"] = list(self.versions)
        for n, (start, end) in enumerate(self.spans):
            parameters[f"start_{n}"] = start
            until = ""
            if end is not None:
                parameters[f"end_{n}"] = end
                until = f" AND m.played_at < %(end_{n})s"
            conditions.append(f"(m.played_at >= %(start_{n})s{until})")
        return " OR ".join(conditions) or "FALSE", parameters


# A patch as a game's placement sees it: its id, when it went live, its versions.
Definitions = dict[int, tuple[datetime, tuple[str, ...]]]


def patch_definitions() -> Definitions:
    return {
        id: (live_at, tuple(versions))
        for id, live_at, versions in Patch.objects.values_list("id", "live_at", "versions")
    }


def moved_by(before: Definitions, after: Definitions) -> Moved:
    """The games whose patch can differ between the patches `before` and `after`: those
    of a version listed by another patch (or none) after, and those played while the
    latest patch live is another (a version no patch lists falls back on the time)."""

    def by_version(definitions: Definitions) -> dict[str, int]:
        return {v: id for id, (_, versions) in definitions.items() for v in versions if v}

    old, new = by_version(before), by_version(after)
    versions = sorted(v for v in old.keys() | new.keys() if old.get(v) != new.get(v))

    def live_at(definitions: Definitions, moment: datetime) -> int | None:
        live = [(at, id) for id, (at, _) in definitions.items() if at <= moment]
        return max(live)[1] if live else None

    # The latest patch live changes only where a patch goes live: compare each stretch
    # between two such moments, merging neighbours.
    moments = sorted({at for at, _ in (*before.values(), *after.values())})
    spans: list[tuple[datetime, datetime | None]] = []
    for start, end in pairwise([*moments, None]):
        if live_at(before, start) == live_at(after, start):
            continue
        if spans and spans[-1][1] == start:
            start = spans.pop()[0]
        spans.append((start, end))
    return Moved(versions=tuple(versions), spans=tuple(spans))


@transaction.atomic
def assign_patches(*, every_game: bool = False, moved: Moved | None = None) -> int:
    """Set the patch of the games stored since the last assignment (`every_game`: of all
    games; `moved`: also of the games a change to the patches can move) and count them
    (game_counts); returns how many changed. Holds the ingest writer's lock, so no game
    below the highest id read is still uncommitted."""
    acquire_transaction_lock(INGEST_WRITER_LOCK, wait=True)
    through = Match.objects.order_by("-id").values_list("id", flat=True).first() or 0
    mark = SiteStatistic.objects.select_for_update().filter(key=ASSIGNED_THROUGH).first()
    after = 0 if every_game or mark is None else int(mark.data["match_id"])
    changed = 0
    if through > after:
        with connection.cursor() as cursor:
            cursor.execute(
                _ASSIGN_SQL.format(games="m.id > %(after)s"), {"after": after, "through": through}
            )
            changed = cursor.rowcount
    count_games(after, through, afresh=every_game)
    moved_games = 0
    if moved is not None and not every_game and after > 0:
        games, parameters = moved.games_sql()
        moved_games = move_counted_games(
            _MOVE_SQL.format(games=games), {**parameters, "through": after}
        )
    # When games last changed patch other than as new games: the kept sums grouped by
    # patch (character_matchups) are stale.
    moved_at = timezone.now().isoformat() if every_game or moved_games else None
    if moved_at is None and mark is not None:
        moved_at = mark.data.get("moved_at")
    SiteStatistic.objects.update_or_create(
        key=ASSIGNED_THROUGH,
        defaults={
            "data": {"match_id": through, "moved_at": moved_at},
            "computed_at": timezone.now(),
        },
    )
    return changed + moved_games


def reassign_after_change(change: Mapping[str, list] | None) -> int:
    """Place again the games a change to the patches can move (`change`: Moved.as_json),
    or every game when what changed is unknown; returns how many changed patch."""
    if change is None:
        return assign_patches(every_game=True)
    return assign_patches(moved=Moved.from_json(change))


@contextmanager
def changing_patches() -> Iterator[None]:
    """Around an operator's addition, edit or deletion of patches: at commit, queue the
    placement of the games the change can move, and show the new patch list at once.
    Changes to the patches take turns (a lock), so that each compares its patches with
    those the previous one left."""
    with transaction.atomic():
        acquire_transaction_lock(PATCH_CHANGE_LOCK, wait=True)
        before = patch_definitions()
        yield
        moved = moved_by(before, patch_definitions())
        transaction.on_commit(bump_generation)
        # Queued even when no game can move: the tables name the patches too.
        task = current_app.tasks[PATCHES_CHANGED_TASK]
        transaction.on_commit(lambda: task.delay(moved.as_json()))
