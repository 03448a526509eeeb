"""The character matchup matrix: `/api/v1/matchups/`."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers import MatchupMatrixSerializer, MatchupsQuery
from matches.selectors.matchups import matchup_matrix
from web.api import documented, query_parameters
from web.caching import cached_get


class CharacterMatchupsView(APIView):
    @documented(
        tag="matchups",
        operation_id="matchups",
        summary="The character matchup matrix",
        description="P(row character beats column character) for every pair, from matchup "
        "ratings over the counted games of a bracket, strongest character first.",
        parameters=[MatchupsQuery],
        response=MatchupMatrixSerializer,
        example=examples.MATCHUPS,
        errors=[400],
    )
    @cached_get
    def get(self, request: Request) -> Response:
        query = query_parameters(MatchupsQuery, request)
        return Response(MatchupMatrixSerializer(matchup_matrix(query["bracket"])).data)
