"""Notable games: `/api/v1/recent/`."""

from __future__ import annotations

from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers.notable_games import NotableGamesSerializer
from matches.selectors.notable_games import notable_games
from web.api import documented
from web.caching import cached_get

NOT_COMPUTED = (
    "The notable games have not been computed yet: they appear after the periodic refresh "
    "(or `manage.py refresh`) has run."
)


class NotableGamesView(APIView):
    @documented(
        tag="recent",
        operation_id="recent",
        summary="The day's notable games",
        description="The biggest upsets between settled ratings in the 24 hours up to the "
        "latest periodic refresh (the lowest chance shown that won), the highest-rated sets "
        "and the newest ranked players, as the /recent page shows them. 404 until the first "
        "refresh.",
        response=NotableGamesSerializer,
        example=examples.NOTABLE_GAMES,
        errors=[404],
        error_details={404: ("Not computed yet.", NOT_COMPUTED)},
    )
    @cached_get
    def get(self, request: Request) -> Response:
        notable = notable_games()
        if notable is None:
            raise NotFound(NOT_COMPUTED)
        return Response(NotableGamesSerializer(notable).data)
