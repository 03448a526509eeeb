"""Who and what the site shows and ranks, each rule written once.

- A **hidden** player appears nowhere: hidden by an operator, or made **private** by
  the player who claimed the profile (players.services.ownership).
- A **withdrawn** player is hidden by an operator: their games leave every history too.
  A private player's games stay in their opponents' histories, against "a private player".
- An **unrated** player is hidden by an operator or a cheater: their games move no rating.
  A private player's games still count, so that nobody else's rating changes.
- A **flagged** player is unrated or private: they are ranked nowhere.
- A rating is **settled** when its deviation is below settings.RATING_LOW_DEVIATION: it
  may be ranked, and it has a tier, peaks and best wins.
- A rating is **confirmed** when its counted games include at least
  settings.RANKED_MIN_OPPONENTS distinct opponents who were settled when they played it
  (Rating.confirmations): what fixed games against fresh spare accounts cannot buy.
- A rating is **rankable** when it is settled and confirmed: the ranking indexes' width;
  only then does it have peaks and best wins.
- A rating is **ranked** when it is rankable and its player is not flagged.

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
    """Players shown nowhere (those `path` leads to): hidden by an operator, or private."""
    return Q(**{f"{path}hidden": True}) | Q(**{f"{path}private": True})


def withdrawn(path: str = "") -> Q:
    """Players hidden by an operator, whose games no history shows."""
    return Q(**{f"{path}hidden": True})


def unrated(path: str = "") -> Q:
    """Players whose games move no rating: hidden by an operator, or cheating."""
    return Q(**{f"{path}hidden": True}) | Q(**{f"{path}cheater": True})


def flagged(path: str = "") -> Q:
    """Flagged players, ranked nowhere: unrated or private."""
    return unrated(path) | Q(**{f"{path}private": True})


def low_deviation() -> float:
    """The deviation below which a rating is settled."""
    return settings.RATING_LOW_DEVIATION


def settled() -> Q:
    """Settled ratings."""
    return Q(deviation__lt=low_deviation())


def min_opponents() -> int:
    """The distinct settled opponents a confirmed rating has met in counted games."""
    return settings.RANKED_MIN_OPPONENTS


def confirmed() -> Q:
    """Confirmed ratings."""
    return Q(confirmations__gte=min_opponents())


def rankable() -> Q:
    """Ratings of ranking width: settled and confirmed (their player aside)."""
    return settled() & confirmed()


def ranked() -> Q:
    """Ranked ratings: rankable, of a player who is not flagged."""
    return rankable() & ~flagged("player__")


class _Flags(Protocol):
    hidden: bool
    cheater: bool
    private: bool


def is_hidden(player: _Flags) -> bool:
    return player.hidden or player.private


def is_flagged(player: _Flags) -> bool:
    return player.hidden or player.cheater or player.private


def is_settled(deviation: float) -> bool:
    return deviation < low_deviation()


def is_confirmed(confirmations: int) -> bool:
    return confirmations >= min_opponents()


def is_rankable(deviation: float, confirmations: int) -> bool:
    return is_settled(deviation) and is_confirmed(confirmations)


# For raw SQL. The Q objects above compiled (once per process: they read no setting),
# so that a query written out cannot drift from the ORM's.


@cache
def withdrawn_ids_sql() -> str:
    """A subquery of the withdrawn players' ids (few, and within player_flagged_idx)."""
    return _player_ids_sql(withdrawn())


@cache
def unrated_ids_sql() -> str:
    """A subquery of the unrated players' ids (few, and within player_flagged_idx)."""
    return _player_ids_sql(unrated())


@cache
def hidden_ids_sql() -> str:
    """A subquery of the hidden players' ids (few, and within player_flagged_idx)."""
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


def confirmed_sql(column: str = "confirmations") -> str:
    """Whether the confirmations `column` is confirmed; its parameter is in `sql_params()`."""
    return f"{column} >= %(min_opponents)s"


def rankable_sql(alias: str = "") -> str:
    """Whether the rating row under `alias` (none: unqualified columns) is rankable; its
    parameters are in `sql_params()`."""
    prefix = f"{alias}." if alias else ""
    return f"{settled_sql(f'{prefix}deviation')} AND {confirmed_sql(f'{prefix}confirmations')}"


def sql_params() -> dict[str, float]:
    """The named parameters of the fragments above."""
    return {"low_deviation": low_deviation(), "min_opponents": min_opponents()}


def _player_ids_sql(condition: Q) -> str:
    sql, params = _player_model().objects.filter(condition).values("id").query.sql_with_params()
    assert not params, "a raw fragment takes no parameters of its own"
    return sql


def _player_model() -> type[Model]:
    # Looked up, not imported: players.models builds its indexes from this module.
    return apps.get_model("players", "Player")
