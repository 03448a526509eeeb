"""Win probability and rating changes: `/api/v1/probability/`."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers.calculator import ForecastSerializer, ProbabilityQuery
from matches.selectors.calculator import Contender, win_forecast
from players.api.params import rating_or_404
from web.api import documented, query_parameters
from web.caching import cached_get


def _contender(spec: tuple[str, Any, Any]) -> Contender:
    kind, first, second = spec
    if kind == "numbers":
        return Contender(first, second)
    return Contender.of(rating_or_404(first, second))


class ProbabilityView(APIView):
    @documented(
        tag="probability",
        operation_id="probability",
        summary="Win probability and rating changes",
        description="P(A wins) for two ratings, typed in or of two players' characters, and "
        "each side's rating after a win and after a loss, by the site's own rules.",
        parameters=[ProbabilityQuery],
        response=ForecastSerializer,
        example=examples.FORECAST,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request) -> Response:
        query = query_parameters(ProbabilityQuery, request)
        forecast = win_forecast(_contender(query["a"]), _contender(query["b"]))
        return Response(ForecastSerializer(forecast).data)
