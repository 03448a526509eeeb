"""Database functions the ORM lacks."""

from __future__ import annotations

from django.db.models import FloatField, Func


class EpochSeconds(Func):
    """A datetime column as float seconds since 1970 UTC, computed by the database.

    The rating loops work in epoch seconds; letting the database convert saves building
    and discarding a datetime object per row, a large share of a million-game replay.
    """

    template = "EXTRACT(EPOCH FROM %(expressions)s)::float8"
    output_field = FloatField()
