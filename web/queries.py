"""Query shapes the ORM has no word for, with no domain in them."""

from __future__ import annotations

from django.db import connection
from django.db.models import Model, QuerySet


def ids_of_pages(*pages: QuerySet[Model]) -> QuerySet[Model]:
    """The ids several ordered and sliced `values("id")` querysets of one model hold, as
    one subquery (a UNION ALL): each walks its own index and stops, and one query reads
    their rows. Where a UNION's parts can hold no ORDER BY or LIMIT (SQLite), each page
    is wrapped in an IN of its own."""
    if not connection.features.supports_slicing_ordering_in_compound:
        manager = pages[0].model._default_manager
        pages = tuple(manager.filter(id__in=page).values("id") for page in pages)
    first, *others = pages
    return first.union(*others, all=True)
