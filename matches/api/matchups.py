"""The character matchup matrix: `/api/v1/matchups/`."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers.matchups import MatchupMatrixSerializer, MatchupsQuery
from matches.selectors.matchups import matchup_matrix
from web.api import documented, query_parameters
from web.caching import cached_get


class CharacterMatchupsView(APIView):
    @documented(
        tag="matchups",
        operation_id="matchups",
        summary="The character matchup matrix",
        description="For every pair, the matchup offset in rating points fitted over the "
        "bracket's counted games, given the players' pre-game ratings "
        "(docs/rating-model.md#matchups), and P(row character beats column character at "
        "equal skill) with its 95% interval; strongest character first. Of the current "
        "patch by default (docs/rating-model.md#patches), each cell with its change since "
        "the previous patch; `patch=all` for every game.",
        parameters=[MatchupsQuery],
        response=MatchupMatrixSerializer,
        example=examples.MATCHUPS,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request) -> Response:
        query = query_parameters(MatchupsQuery, request)
        matrix = matchup_matrix(query["bracket"], query["patch"])
        return Response(MatchupMatrixSerializer(matrix).data)
