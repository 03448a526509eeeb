"""Database functions the ORM lacks, and the rating model's formulas as SQL.

Every query that computes a win probability in the database builds it here, from the
constants of the pure modules (matches.ratings.glicko, matches.ratings.matchup_offset),
so SQL and Python cannot drift apart (tests/matches/test_dbfunctions.py holds them equal
on PostgreSQL).
"""

from __future__ import annotations

from django.db.models import Expression, F, FloatField, Func, Value
from django.db.models.functions import Cast, Greatest, Least, Ln

from matches.ratings import calibration, matchup_offset


class EpochSeconds(Func):
    """A datetime column as float seconds since 1970 UTC, computed by the database.

    The rating loops work in epoch seconds; letting the database convert saves building
    and discarding a datetime object per row, a large share of a million-game replay.
    """

    template = "EXTRACT(EPOCH FROM %(expressions)s)::float8"
    output_field = FloatField()


def _expression(operand: str | Expression) -> Expression:
    return F(operand) if isinstance(operand, str) else operand


def chance_logit(chance: str | Expression) -> Expression:
    """calibration.chance_logits of a probability field or expression, in the database:
    ln(p / (1 - p)) within ±MAX_LOGIT (a certain 0 or 1 counts as that)."""
    p = _expression(chance)
    bound = Value(calibration.MAX_LOGIT)
    tiny = Value(1e-300)
    logit = Ln(Greatest(p, tiny)) - Ln(Greatest(Value(1.0) - p, tiny))
    return Cast(Least(Greatest(logit, -bound), bound), FloatField())


def expected_sql(difference: str) -> str:
    """matchup_offset.expected, P(win) of a side `difference` rating points stronger, as an
    SQL fragment around the SQL expression `difference`."""
    return f"(1.0 / (1.0 + EXP(-{matchup_offset.K!r}::float8 * ({difference}))))"
