"""Middleware that turns requests no view can serve into clear 4xx answers."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.utils.cache import set_response_etag

from web.api import error_body

Handler = Callable[[HttpRequest], HttpResponse]

# The methods some view of the site answers; TRACE only echoes a request back.
ALLOWED_METHODS = ("GET", "HEAD", "OPTIONS", "POST")


def refuse_trace(get_response: Handler) -> Handler:
    def middleware(request: HttpRequest) -> HttpResponse:
        if request.method == "TRACE":
            return HttpResponseNotAllowed(ALLOWED_METHODS)
        return get_response(request)

    return middleware


def head_without_body(get_response: Handler) -> Handler:
    """Answer HEAD with the headers of the GET and no body, whatever the view (or a cache
    in front of it) produced: not every server drops the body itself."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if request.method == "HEAD" and not response.streaming:
            response["Content-Length"] = str(len(response.content))
            response.content = b""
        return response

    return middleware


def _unstorable(text: str) -> bool:
    """NUL (which PostgreSQL text cannot hold) or an unpaired surrogate (which UTF-8 cannot)."""
    return "\x00" in text or any("\ud800" <= char <= "\udfff" for char in text)


def unstorable_parameter(request: HttpRequest) -> str | None:
    """The name of the first query parameter whose name or value no database could hold."""
    for name, values in request.GET.lists():
        if _unstorable(name) or any(_unstorable(value) for value in values):
            return name
    return None


UNSTORABLE = "holds a NUL character or an unpaired surrogate, which no page or endpoint accepts."


def refuse_unstorable_query(get_response: Handler) -> Handler:
    """400 for a query parameter no database could compare against: one rule for every
    page and endpoint, before any of them runs (the API's answer in its error shape)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        name = unstorable_parameter(request)
        if name is None:
            return get_response(request)
        message = f"The query parameter {name!r} {UNSTORABLE}"
        if request.path.startswith("/api/"):
            body = error_body(400, "invalid", message, {name: [message]})
            return JsonResponse(body, status=400)
        return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")

    return middleware


def weak_etag(get_response: Handler) -> Handler:
    """Give an answer without an ETag a weak one of its body, below ConditionalGetMiddleware
    (which then compares it, and answers 304), unless it may not be stored (as Django).
    Weak from the start, because the gzip middleware above weakens the tag of what it
    compresses but not of a 304: a client would otherwise be told W/"x" with the page
    and "x" with the 304."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        stored = "no-store" not in response.get("Cache-Control", "").lower()
        if request.method in ("GET", "HEAD") and stored and not response.has_header("ETag"):
            set_response_etag(response)
            if response.has_header("ETag"):
                response["ETag"] = "W/" + response["ETag"]
        return response

    return middleware
