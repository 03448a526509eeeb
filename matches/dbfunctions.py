"""Database functions the ORM lacks, and the rating model's formulas as SQL.

Every query that computes a win probability in the database builds it here, from the
constants of the pure modules (matches.ratings.glicko, matches.ratings.matchup_offset),
so SQL and Python cannot drift apart (tests/matches/test_dbfunctions.py holds them equal
on PostgreSQL).
"""

from __future__ import annotations

from django.db.models import Expression, F, FloatField, Func, Value
from django.db.models.functions import Cast, Sqrt

from matches.ratings import glicko, matchup_offset


class EpochSeconds(Func):
    """A datetime column as float seconds since 1970 UTC, computed by the database.

    The rating loops work in epoch seconds; letting the database convert saves building
    and discarding a datetime object per row, a large share of a million-game replay.
    """

    template = "EXTRACT(EPOCH FROM %(expressions)s)::float8"
    output_field = FloatField()


def _expression(operand: str | Expression) -> Expression:
    return F(operand) if isinstance(operand, str) else operand


def win_logit(
    value_a: str | Expression,
    deviation_a: str | Expression,
    value_b: str | Expression,
    deviation_b: str | Expression,
) -> Expression:
    """The log-odds of glicko.win_probability, P(A beats B), as an ORM expression over
    fields (names) or expressions: Q · (r_a - r_b) · g(√(RD_a² + RD_b²))."""
    value_a, deviation_a, value_b, deviation_b = map(
        _expression, (value_a, deviation_a, value_b, deviation_b)
    )
    spread = Sqrt(
        Value(1.0) + glicko.G_FACTOR * (deviation_a * deviation_a + deviation_b * deviation_b)
    )
    return Cast(glicko.Q * (value_a - value_b) / spread, FloatField())


def expected_sql(difference: str) -> str:
    """matchup_offset.expected, P(win) of a side `difference` rating points stronger, as an
    SQL fragment around the SQL expression `difference`."""
    return f"(1.0 / (1.0 + EXP(-{matchup_offset.K!r}::float8 * ({difference}))))"
