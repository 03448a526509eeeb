"""Cache keys that hold only the query parameters a view reads, each in one canonical form.

A request's query string is cut down to the declared parameters, in a canonical form
(names sorted, the last value of each name, as QueryDict.get and forms read it, encoded
one way), and the request itself is rewritten to that query before the view runs: what
the view renders is then exactly what the key describes, unknown parameters reach
neither the key nor the view, and links built from the request carry none of them.

Each parameter's value is first put in its canonical form (`page=0001` is `page=1`, a
padded name is the name): a new spelling of a value is not a new cache entry. A value
that has no canonical form is refused (InvalidQuery: a 400, which is never cached), or
left as it came for the view to refuse.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

from django.http import HttpRequest, QueryDict
from django.utils.http import urlencode

from web.errors import InvalidQuery

# A parameter's value → its canonical form (or InvalidQuery).
Canonical = Callable[[str, str], str]


def as_given(name: str, value: str) -> str:
    """A value the view compares against a short list of its own (it refuses the rest)."""
    return value


def whole_number(name: str, value: str) -> str:
    """'0…01' → '1'; anything but digits stays as it came, for the view to refuse."""
    return (value.lstrip("0") or "0") if value.isascii() and value.isdigit() else value


def upper_case(name: str, value: str) -> str:
    """A character code, which pages take in any case."""
    return value.upper()


def optional_number(name: str, value: str) -> str:
    """A number typed into a form ('1500', ' 1500.0', '1.5e3' → '1500'); '' stays ''; a
    value that is no finite number is refused."""
    text = value.strip()
    if not text:
        return ""
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise InvalidQuery(name, "a number")
    return repr(int(number)) if number.is_integer() else repr(number)


def keep_only_parameters(
    request: HttpRequest, reads: Mapping[str, Canonical] | Iterable[str]
) -> None:
    """Reduce the request's query (GET and the query string) to the parameters it `reads`,
    each in its canonical form (a plain list of names: each as given)."""
    forms = reads if isinstance(reads, Mapping) else dict.fromkeys(reads, as_given)
    query = request.GET
    canonical = urlencode(
        sorted((name, form(name, query[name])) for name, form in forms.items() if name in query)
    )
    request.GET = QueryDict(canonical)
    request.META["QUERY_STRING"] = canonical
