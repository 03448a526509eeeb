"""A time limit on a query a client can make expensive, and the 503 when it runs out.

Searches are the site's one read whose cost a client chooses (a fragment in a million
names); `statement_timeout` bounds what one costs the database, and
`StatementTimeoutMiddleware` answers the cancelled request with a 503 and `Retry-After`,
which no cache stores.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import OperationalError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse

from web.api import error_body

RETRY_AFTER_SECONDS = 30
TOO_SLOW = "This search took too long to answer; a longer name finds the player sooner."


def fetch_within(milliseconds: int, sql: str, params: Sequence[object]) -> list[tuple]:
    """The rows of `sql`, cancelled after `milliseconds` (0: no limit; a cancelled query
    raises OperationalError, QueryCanceled). The limit is set in the same message as the
    query: several statements in one message run in one implicit transaction, to which
    `SET LOCAL` applies (inside an open transaction, until it ends). One round trip where a
    transaction of its own took four, each a wake-up of another process on a busy server
    (issue 35's cold searches)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL statement_timeout = {int(milliseconds)}; {sql}", params)
        cursor.nextset()
        return cursor.fetchall()


def _cancelled(exception: BaseException) -> bool:
    cause = exception.__cause__
    return isinstance(exception, OperationalError) and type(cause).__name__ == "QueryCanceled"


class StatementTimeoutMiddleware:
    """503 with Retry-After for a request whose query ran out of its statement timeout."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not _cancelled(exception):
            return None
        if request.path.startswith("/api/"):
            response = JsonResponse(error_body(503, "timeout", TOO_SLOW), status=503)
        else:
            response = HttpResponse(TOO_SLOW, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
