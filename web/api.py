"""What every API endpoint shares: the error shape, schema helpers, pagination, validated
query parameters and conditional GETs.

Views in players.api and matches.api stay thin by leaning on these pieces; the URLconf
(ratingsite.api_urls) wraps each view in `conditional` so that polling clients get 304s.
Nothing here knows about players or matches: the response cache is web.caching.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import wraps
from typing import Any, TypeVar

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import URLPattern, reverse
from django.utils.cache import get_conditional_response, patch_cache_control
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import exceptions, serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from web.cache_keys import keep_only_parameters
from web.caching import api_request_key
from web.generation import current_generation

F = TypeVar("F", bound=Callable[..., Any])

# --- Errors ------------------------------------------------------------------------------

_VALIDATION_DETAIL = "Some query parameters are invalid; see `fields`."


def error_body(
    status: int, code: str, detail: str, fields: Mapping[str, list[str]] | None = None
) -> dict[str, Any]:
    """The one error shape: {"error": {"status", "code", "detail"[, "fields"]}}."""
    error: dict[str, Any] = {"status": status, "code": code, "detail": detail}
    if fields:
        error["fields"] = dict(fields)
    return {"error": error}


def _field_messages(detail: Any) -> dict[str, list[str]]:
    if isinstance(detail, Mapping):
        return {
            str(name): [str(message) for message in (value if isinstance(value, list) else [value])]
            for name, value in detail.items()
        }
    return {"non_field_errors": [str(message) for message in detail]}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler (status, Retry-After on 429), with every error body in the one shape."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    if isinstance(exc, exceptions.ValidationError):
        response.data = error_body(
            response.status_code, "invalid", _VALIDATION_DETAIL, _field_messages(exc.detail)
        )
    else:
        code = exc.detail.code if isinstance(exc.detail, exceptions.ErrorDetail) else None
        response.data = error_body(
            response.status_code, str(code or exc.default_code), str(exc.detail)
        )
    return response


def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """Unknown URLs under /api/ answer in the error shape too, not with the HTML 404 page."""
    return JsonResponse(
        error_body(404, "not_found", f"No API endpoint at {request.path}."), status=404
    )


# --- The index ---------------------------------------------------------------------------

INDEX_MAX_AGE = 3600


def endpoint_index(
    patterns: Sequence[URLPattern], links: Mapping[str, str]
) -> Callable[[HttpRequest], HttpResponse]:
    """A view, served where `patterns` are included, listing each pattern's name and
    absolute URL (path parameters as `{name}` templates), plus `links` (name: URL name)
    such as the schema and its docs."""
    routes = {
        pattern.name: re.sub(r"<\w+:(\w+)>", r"{\1}", str(pattern.pattern)) for pattern in patterns
    }

    def index(request: HttpRequest) -> HttpResponse:
        # Joined by hand: building each URL would escape the braces of its parameters.
        here = request.build_absolute_uri(request.path)
        response = JsonResponse(
            {
                "endpoints": {name: here + route for name, route in routes.items()},
                **{
                    name: request.build_absolute_uri(reverse(url_name))
                    for name, url_name in links.items()
                },
            }
        )
        patch_cache_control(response, public=True, max_age=INDEX_MAX_AGE)
        return response

    return index


class ErrorDetailSerializer(serializers.Serializer):
    status = serializers.IntegerField(help_text="The HTTP status, repeated.")
    code = serializers.CharField(
        help_text="A stable machine-readable code: `invalid`, `not_found`, `throttled`, ..."
    )
    detail = serializers.CharField(help_text="A human-readable explanation.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="For `invalid` only: the messages for each offending query parameter.",
    )


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer(help_text="What went wrong.")


_ERROR_EXAMPLES = {
    400: (
        "The query parameters are invalid.",
        error_body(400, "invalid", _VALIDATION_DETAIL, {"bracket": ['"top5" is not a choice.']}),
    ),
    401: (
        "No owner key, or a key that does not open the profile it names.",
        error_body(401, "authentication_failed", "That key does not open that profile."),
    ),
    404: (
        "No such resource (or it belongs to a hidden player), or an invalid page or cursor.",
        error_body(404, "not_found", "No player 230129212655563979."),
    ),
    429: (
        "Too many requests from this client; retry after `Retry-After` seconds.",
        error_body(429, "throttled", "Request was throttled. Expected available in 12 seconds."),
    ),
}


def error_responses(
    *statuses: int, details: Mapping[int, tuple[str, str]] | None = None
) -> dict[int, OpenApiResponse]:
    """Schema entries for the given error statuses; every endpoint may answer 429.

    `details` gives an endpoint's own (description, detail message) for a status.
    """
    responses = {}
    for status in sorted({*statuses, 429}):
        description, body = _ERROR_EXAMPLES[status]
        if details and status in details:
            description, detail = details[status]
            body = error_body(status, body["error"]["code"], detail)
        responses[status] = OpenApiResponse(
            ErrorSerializer,
            description=description,
            examples=[OpenApiExample(f"error {status}", value=body, status_codes=[status])],
        )
    return responses


CACHE_HEADERS = [
    OpenApiParameter(
        "ETag",
        str,
        OpenApiParameter.HEADER,
        response=[200],
        description="Changes when the data behind the response may have changed: send it back "
        "in `If-None-Match` to get an empty 304 while it holds.",
    ),
    OpenApiParameter(
        "Cache-Control",
        str,
        OpenApiParameter.HEADER,
        response=[200],
        description="`public, max-age=N`: how long the response may be reused without asking.",
    ),
    OpenApiParameter(
        "Retry-After",
        int,
        OpenApiParameter.HEADER,
        response=[429],
        description="Seconds to wait before the next request.",
    ),
]


def documented(
    *,
    tag: str,
    operation_id: str,
    summary: str,
    response: Any,
    example: Any,
    description: str = "",
    parameters: Sequence[Any] = (),
    errors: Sequence[int] = (),
    error_details: Mapping[int, tuple[str, str]] | None = None,
) -> Callable[[F], F]:
    """The schema of a GET endpoint: its 200 response with an example, cache headers and
    the error responses it may give (always 429), with `error_details` giving its own
    (description, detail message) for a status."""
    return extend_schema(
        operation_id=operation_id,
        tags=[tag],
        summary=summary,
        description=description,
        parameters=[*parameters, *CACHE_HEADERS],
        responses={200: response, **error_responses(*errors, details=error_details)},
        examples=[OpenApiExample(summary, value=example, response_only=True, status_codes=[200])],
    )


# --- Pagination --------------------------------------------------------------------------


class RankingPagination(PageNumberPagination):
    """`?page=` from 1 and `?page_size=` up to 100 (ranks move as ratings change, so page
    numbers, not cursors)."""

    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request: Request) -> int:
        """The requested page size; 400 when it is not a whole number within the limits."""
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        field = serializers.IntegerField(min_value=1, max_value=self.max_page_size)
        try:
            return field.run_validation(raw)
        except exceptions.ValidationError as error:
            raise exceptions.ValidationError({self.page_size_query_param: error.detail}) from None

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        paginated = super().get_paginated_response_schema(schema)
        properties = paginated["properties"]
        properties["count"].update(description="How many results there are on all pages.")
        if isinstance(properties["results"], dict):  # not drf-spectacular's example sentinel
            properties["results"] = {**properties["results"], "description": "This page's results."}
        for link, page, description in (("next", 3, "next"), ("previous", 1, "previous")):
            properties[link].update(
                description=f"The {description} page; null when there is none.",
                example=f"https://example.org/api/v1/rankings/?page={page}",
            )
        return paginated

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        page, page_size = super().get_schema_operation_parameters(view)
        page["schema"]["minimum"] = 1
        page_size["schema"].update(minimum=1, maximum=self.max_page_size, default=self.page_size)
        page_size["description"] = f"Results per page (1-{self.max_page_size})."
        return [page, page_size]


# --- Conditional GETs ------------------------------------------------------------------------


def response_etag(request: HttpRequest) -> str:
    """A weak ETag for this URL at the current ratings generation."""
    return f'W/"{current_generation()}-{api_request_key(request)}"'


def conditional(
    view: Callable[..., HttpResponse], *, max_age: int, reads: Iterable[str] = ()
) -> Callable[..., HttpResponse]:
    """Answer GET/HEAD with an ETag and `Cache-Control: public, max-age`, and with 304 when
    the client already holds the current version (the view does not run at all then;
    `If-None-Match: *` is answered after the view, for a resource that exists).

    The view, its ETag and its response cache see only the query parameters it `reads`."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        keep_only_parameters(request, reads)
        etag = response_etag(request)
        # `*` matches whatever exists: only the view (its throttle, its 404) can say that.
        any_version = request.headers.get("If-None-Match", "").strip() == "*"
        response = None if any_version else get_conditional_response(request, etag=etag)
        if response is None:
            response = view(request, *args, **kwargs)
            if response.status_code != 200:
                return response
            if any_version:
                response = get_conditional_response(request, etag=etag, response=response)
        response["ETag"] = etag
        patch_cache_control(response, public=True, max_age=max_age)
        return response

    wrapped.query_parameters = frozenset(reads)  # checked against the schema by the tests
    return wrapped


def query_parameters(serializer_class: type[serializers.Serializer], request: Request) -> Any:
    """The request's query parameters, validated by a serializer (400 in the error shape)."""
    # A plain dict (the last value of each name), so that an empty value is a value to
    # validate, not an absent one.
    serializer = serializer_class(data=dict(request.query_params.items()))
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
