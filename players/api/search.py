"""Search: `/api/v1/players/?name=`."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players.api import examples
from players.api.serializers import PlayerSearchSerializer, SearchQuery
from players.selectors.search import find_players
from web.api import documented, query_parameters
from web.caching import cached_get


class PlayerSearch(APIView):
    @documented(
        tag="players",
        operation_id="players_search",
        summary="Search players by name",
        description="Visible players whose current or any past name contains `name` "
        "(ignoring case, spaces and invisible characters; one or two characters: names "
        "starting with them), best match first, each with all their ratings.",
        parameters=[SearchQuery],
        response=PlayerSearchSerializer,
        example=examples.SEARCH,
        errors=[400],
    )
    @cached_get
    def get(self, request: Request) -> Response:
        query = query_parameters(SearchQuery, request)
        found = find_players(query["name"], limit=query["limit"])
        return Response(
            PlayerSearchSerializer({"results": found.hits, "more_match": found.more_match}).data
        )
