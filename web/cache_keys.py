"""Cache keys that hold only the query parameters a view reads.

A request's query string is cut down to the declared parameters, in a canonical form
(names sorted, the last value of each name, as QueryDict.get and forms read it, encoded
one way), and the request itself is rewritten to that query before the view runs: what
the view renders is then exactly what the key describes, unknown parameters reach
neither the key nor the view, and links built from the request carry none of them.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.http import HttpRequest, QueryDict
from django.utils.http import urlencode


def keep_only_parameters(request: HttpRequest, names: Iterable[str]) -> None:
    """Reduce the request's query (GET and the query string) to `names`, canonically."""
    query = request.GET
    canonical = urlencode(sorted((name, query[name]) for name in set(names) if name in query))
    request.GET = QueryDict(canonical)
    request.META["QUERY_STRING"] = canonical
