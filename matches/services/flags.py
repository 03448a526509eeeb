"""A player's flags (hidden, cheater, supporter), set by operators through one service.

The admin, the shell or a future API all call `set_player_flags`: it writes the flags,
records each change (PlayerFlagChange: which, to what, by whom, when) and invalidates the
cached pages at commit, so lists, search, profiles and the API show it on the next
request. A hidden or cheater change changes which games count (players.rules: a flagged
player's games count for nobody), and not only from now on: every rating is recomputed
from the stored games under the new flags, as if they had always been set, so opponents
lose what they won or lost against a cheater and get it back when the flag is lifted.
The recompute waits for the rating writer and takes a minute at ten million games, so it
is queued as a task (`matches.tasks.recompute_after_flag_changes`) rather than run in the
operator's request. Changes made before that task starts share it: a burst of flags (a
list of players edited at once, a shell loop) recomputes once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import current_app
from django.db import transaction
from django.utils import timezone

from matches.models import PlayerFlagChange
from matches.services.locks import FLAG_CHANGE_LOCK, acquire_transaction_lock
from matches.services.rating.recompute import recompute_all_ratings
from matches.services.rating.storage import RatingRun
from matches.services.statistics import recompute_site_statistics
from players.models import Player
from web.generation import bump_generation

# The flags that decide which games count (players.rules.flagged).
RATING_FLAGS = frozenset({PlayerFlagChange.Flag.HIDDEN, PlayerFlagChange.Flag.CHEATER})
# Sent by name: the tasks module imports the services, never the other way round.
RECOMPUTE_TASK = "matches.tasks.recompute_after_flag_changes"
# A recompute queued this long ago and not started is taken for lost (a broker that
# dropped it): the next change queues another. A busy worker merely recomputes twice.
QUEUED_RECOMPUTE_LOST_AFTER = timedelta(minutes=15)
Recompute = PlayerFlagChange.Recompute


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
    The recompute is queued at commit, and only if no change before it still waits for
    one to start."""
    wanted = {
        flag: value
        for flag, value in (("hidden", hidden), ("cheater", cheater), ("supporter", supporter))
        if value is not None
    }
    if not wanted:
        return set()
    with transaction.atomic():
        # Against the queued recompute taking the waiting changes (recompute_after_flag_changes):
        # a change is either taken and seen by that recompute, or queues one of its own.
        acquire_transaction_lock(FLAG_CHANGE_LOCK, wait=True)
        stored = Player.objects.select_for_update().values(*wanted).get(pk=player.pk)
        changed = {flag: value for flag, value in wanted.items() if stored[flag] != value}
        if not changed:
            return set()
        Player.objects.filter(pk=player.pk).update(**changed)
        now = timezone.now()
        queued = PlayerFlagChange.objects.filter(
            recompute=Recompute.QUEUED, at__gt=now - QUEUED_RECOMPUTE_LOST_AFTER
        ).exists()
        PlayerFlagChange.objects.bulk_create(
            PlayerFlagChange(
                player_id=player.pk,
                flag=flag,
                value=value,
                by=by,
                at=now,
                recompute=Recompute.QUEUED if flag in RATING_FLAGS else Recompute.NONE,
            )
            for flag, value in changed.items()
        )
        transaction.on_commit(bump_generation)
        if not queued and not RATING_FLAGS.isdisjoint(changed):
            transaction.on_commit(current_app.tasks[RECOMPUTE_TASK].delay)
    for flag, value in changed.items():
        setattr(player, flag, value)
    return set(changed)


def recompute_after_flag_changes(now: datetime | None = None) -> RatingRun | None:
    """The queued recompute: take every change waiting for one, recompute every rating
    (rating.recompute: the flags as they are then, the character and player matchups, the
    snapshots), then the site statistics, as of `now`; mark the changes taken done.
    Returns the run, or None when no change was waiting (a task delivered twice).

    The changes are taken in a commit of their own before the recompute reads the flags,
    so a change committed later queues another recompute rather than being missed. One
    taken but left unfinished (a worker that died) is taken again by the next."""
    with transaction.atomic():
        acquire_transaction_lock(FLAG_CHANGE_LOCK, wait=True)
        taken = list(
            PlayerFlagChange.objects.filter(
                recompute__in=(Recompute.QUEUED, Recompute.STARTED)
            ).values_list("pk", flat=True)
        )
        PlayerFlagChange.objects.filter(pk__in=taken).update(recompute=Recompute.STARTED)
    if not taken:
        return None
    now = now or timezone.now()
    run = recompute_all_ratings(now=now)
    recompute_site_statistics(now)
    PlayerFlagChange.objects.filter(pk__in=taken).update(recompute=Recompute.DONE)
    bump_generation()  # the profiles' banners no longer say the recompute is pending
    return run
