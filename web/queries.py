"""Query shapes the ORM has no word for, with no domain in them."""

from __future__ import annotations

from django.db.models import Model, QuerySet


def ids_of_pages(*pages: QuerySet[Model]) -> QuerySet[Model]:
    """The ids several ordered and sliced `values("id")` querysets of one model hold, as
    one subquery (a UNION ALL): each walks its own index and stops, and one query reads
    their rows. Each part wraps its page in an IN of its own, as SQLite allows no ORDER
    BY or LIMIT in the parts of a UNION."""
    manager = pages[0].model._default_manager
    first, *others = (manager.filter(id__in=page).values("id") for page in pages)
    return first.union(*others, all=True)
