"""A player's flags (hidden, cheater, supporter), set by operators through one service.

The admin, the shell or a future API all call `set_player_flags`: it writes the flags,
records each change (PlayerFlagChange: which, to what, by whom, when) and invalidates the
cached pages at commit, so lists, search, profiles and the API show it on the next
request. A hidden or cheater change also changes which games the character matchups are
fitted from; rebuilding them waits for the rating writer, so it is queued as a task
(`matches.tasks.rebuild_character_matchups`) rather than run in the operator's request.
Changes made before that task starts share it: a burst of flags (a list of players edited
at once, a shell loop) rebuilds once.
"""

from __future__ import annotations

from datetime import timedelta

from celery import current_app
from django.db import transaction
from django.utils import timezone

from matches.models import PlayerFlagChange
from matches.services.character_matchups import rebuild_character_matchups
from matches.services.locks import FLAG_CHANGE_LOCK, acquire_transaction_lock
from players.models import Player
from web.generation import bump_generation

# The flags the character matchups depend on (players.rules: flagged players' games drop out).
MATCHUP_FLAGS = frozenset({PlayerFlagChange.Flag.HIDDEN, PlayerFlagChange.Flag.CHEATER})
# Sent by name: the tasks module imports the services, never the other way round.
REBUILD_TASK = "matches.tasks.rebuild_character_matchups"
# A rebuild queued this long ago and not started is taken for lost (a broker that dropped
# it): the next change queues another. A busy worker merely rebuilds twice.
QUEUED_REBUILD_LOST_AFTER = timedelta(minutes=15)


def set_player_flags(
    player: Player,
    *,
    hidden: bool | None = None,
    cheater: bool | None = None,
    supporter: bool | None = None,
    by: str,
) -> set[str]:
    """Set the flags given (None leaves one as it is) and return those that changed.

    `by` names who changed them (an operator's user name, "shell", ...) for the record.
    The matchup rebuild is queued at commit, and only if no change before it still waits
    for one."""
    wanted = {
        flag: value
        for flag, value in (("hidden", hidden), ("cheater", cheater), ("supporter", supporter))
        if value is not None
    }
    if not wanted:
        return set()
    with transaction.atomic():
        # Against the queued rebuild clearing the pending changes (rebuild_after_flag_changes):
        # a change is either cleared and seen by that rebuild, or queues one of its own.
        acquire_transaction_lock(FLAG_CHANGE_LOCK, wait=True)
        stored = Player.objects.select_for_update().values(*wanted).get(pk=player.pk)
        changed = {flag: value for flag, value in wanted.items() if stored[flag] != value}
        if not changed:
            return set()
        Player.objects.filter(pk=player.pk).update(**changed)
        now = timezone.now()
        queued = PlayerFlagChange.objects.filter(
            matchups_pending=True, at__gt=now - QUEUED_REBUILD_LOST_AFTER
        ).exists()
        PlayerFlagChange.objects.bulk_create(
            PlayerFlagChange(
                player_id=player.pk,
                flag=flag,
                value=value,
                by=by,
                at=now,
                matchups_pending=flag in MATCHUP_FLAGS,
            )
            for flag, value in changed.items()
        )
        transaction.on_commit(bump_generation)
        if not queued and not MATCHUP_FLAGS.isdisjoint(changed):
            transaction.on_commit(current_app.tasks[REBUILD_TASK].delay)
    for flag, value in changed.items():
        setattr(player, flag, value)
    return set(changed)


def rebuild_after_flag_changes() -> int:
    """The queued rebuild: take every pending change, then rebuild the character matchups
    (returns the rows written) and invalidate the cached pages.

    The pending changes are cleared in a commit of their own before the rebuild reads the
    flags, so a change committed later queues another rebuild rather than being missed."""
    with transaction.atomic():
        acquire_transaction_lock(FLAG_CHANGE_LOCK, wait=True)
        PlayerFlagChange.objects.filter(matchups_pending=True).update(matchups_pending=False)
    rows = rebuild_character_matchups()
    bump_generation()
    return rows
