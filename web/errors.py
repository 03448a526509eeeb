"""Pages' answer to a query value no view takes: 400 with what is allowed instead.

A view raises `InvalidQuery`; Django hands it to `bad_request` (`handler400` in the root
URLconf), which shows the view's message on the site's layout. Other 400s (Django's own,
for suspicious or unparsable requests) keep a plain page that reads nothing of the request.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import defaults


class InvalidQuery(BadRequest):
    """A query parameter's value that the page does not take, saying which are taken."""

    def __init__(self, name: str, allowed: str) -> None:
        super().__init__(f"The query parameter {name!r} takes {allowed}.")


def one_of(values: Iterable[object]) -> str:
    """'30', '7d, 30d or all': the values a parameter takes, for InvalidQuery."""
    texts = [str(value) for value in values]
    return texts[0] if len(texts) == 1 else f"{', '.join(texts[:-1])} or {texts[-1]}"


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not isinstance(exception, InvalidQuery):
        # Django's own, which reads nothing of a request that may not parse.
        return defaults.bad_request(request, exception, template_name="400-plain.html")
    return render(request, "400.html", {"message": str(exception)}, status=400)
