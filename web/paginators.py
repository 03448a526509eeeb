"""A paginator for lists of millions of rows (the admin's match list): it never counts
a whole table.

Unfiltered, the count is the planner's estimate (pg_class.reltuples, kept by
autovacuum) when it is above a bound; otherwise rows are counted up to that bound, which
is the count when fewer match. Page links past the bound are not offered.
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db import connections
from django.utils.functional import cached_property

# Rows counted exactly at most; an estimate above it is taken as it is.
COUNT_BOUND = 10_000


class EstimatedCountPaginator(Paginator):
    count_bound = COUNT_BOUND

    @cached_property
    def count(self) -> int:
        queryset = self.object_list
        if not queryset.query.where:
            estimate = _table_estimate(queryset.db, queryset.model._meta.db_table)
            if estimate is not None and estimate > self.count_bound:
                return estimate
        return queryset[: self.count_bound + 1].count()


def _table_estimate(alias: str, table: str) -> int | None:
    """The planner's row estimate for `table`, or None for a table never analysed."""
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [table])
        row = cursor.fetchone()
    return int(row[0]) if row and row[0] >= 0 else None
