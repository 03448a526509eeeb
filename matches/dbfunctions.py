"""Database functions the ORM lacks."""

from __future__ import annotations

from typing import Any

from django.db.models import FloatField, Func


class EpochSeconds(Func):
    """A datetime column as float seconds since 1970 UTC, computed by the database.

    The rating loops work in epoch seconds; letting the database convert saves building
    and discarding a datetime object per row, a large share of a million-game replay.
    """

    output_field = FloatField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list]:
        return self.as_sql(
            compiler, connection, template="EXTRACT(EPOCH FROM %(expressions)s)::float8", **extra
        )

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list]:
        # Django stores 'YYYY-MM-DD HH:MM:SS[.ffffff]' (UTC): whole seconds plus the fraction
        # (strftime on the whole text would round the fraction to milliseconds).
        # '%%%%' survives both the template's and the SQLite cursor's % formatting as one '%'.
        return self.as_sql(
            compiler,
            connection,
            template=(
                "(CAST(strftime('%%%%s', substr(%(expressions)s, 1, 19)) AS REAL)"
                " + CAST(substr(%(expressions)s, 20) AS REAL))"
            ),
            **extra,
        )
