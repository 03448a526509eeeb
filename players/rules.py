"""Who and what the site shows and ranks, each rule written once.

- A **hidden** player opted out: their games are kept (and rated) but appear nowhere.
- A **flagged** player is hidden or a cheater: their games move no rating and they are
  ranked nowhere.
- A rating is **settled** when its deviation is below settings.RATING_LOW_DEVIATION: it
  may be ranked, and it has a tier, peaks and best wins.
- A rating is **ranked** when it is settled and its player is not flagged.

Each rule is a Q object for querysets (`path` leads from the queried model to the
player, e.g. "player__"), an SQL fragment compiled from that Q (or, for the deviation,
written beside it with the same setting) for the few hand-written queries, and a
predicate on a loaded row. tests/players/test_raw_queries.py and
tests/matches/test_raw_queries.py hold every hand-written query to the ORM's answer.
"""

from __future__ import annotations

from functools import cache
from typing import Protocol

from django.apps import apps
from django.conf import settings
from django.db import connection
from django.db.models import Model, Q


def hidden(path: str = "") -> Q:
    """Hidden players (those `path` leads to)."""
    return Q(**{f"{path}hidden": True})


def flagged(path: str = "") -> Q:
    """Flagged players: hidden or cheating."""
    return hidden(path) | Q(**{f"{path}cheater": True})


def low_deviation() -> float:
    """The deviation below which a rating is settled."""
    return settings.RATING_LOW_DEVIATION


def settled() -> Q:
    """Settled ratings."""
    return Q(deviation__lt=low_deviation())


def ranked() -> Q:
    """Ranked ratings: settled, of a player who is not flagged."""
    return settled() & ~flagged("player__")


class _Flags(Protocol):
    hidden: bool
    cheater: bool


def is_flagged(player: _Flags) -> bool:
    return player.hidden or player.cheater


def is_settled(deviation: float) -> bool:
    return deviation < low_deviation()


# For raw SQL. The Q objects above compiled (once per process: they read no setting),
# so that a query written out cannot drift from the ORM's.


@cache
def hidden_ids_sql() -> str:
    """A subquery of the hidden players' ids (few: hashed, where joined they are not)."""
    return _player_ids_sql(hidden())


@cache
def flagged_ids_sql() -> str:
    """A subquery of the flagged players' ids (few, and indexed: player_flagged_idx)."""
    return _player_ids_sql(flagged())


@cache
def flagged_sql(alias: str) -> str:
    """Whether the player row under `alias` is flagged."""
    players = _player_model()
    query = players.objects.filter(flagged()).query
    query.change_aliases({players._meta.db_table: alias})
    sql, params = query.get_compiler(connection=connection).compile(query.where)
    assert not params, "a raw fragment takes no parameters of its own"
    return sql


def settled_sql(column: str = "deviation") -> str:
    """Whether the deviation `column` is settled; its parameter is in `sql_params()`."""
    return f"{column} < %(low_deviation)s"


def sql_params() -> dict[str, float]:
    """The named parameters of the fragments above."""
    return {"low_deviation": low_deviation()}


def _player_ids_sql(condition: Q) -> str:
    sql, params = _player_model().objects.filter(condition).values("id").query.sql_with_params()
    assert not params, "a raw fragment takes no parameters of its own"
    return sql


def _player_model() -> type[Model]:
    # Looked up, not imported: players.models builds its indexes from this module.
    return apps.get_model("players", "Player")
