"""Rankings: `/api/v1/rankings/[<char>/]`."""

from __future__ import annotations

from django.db.models import QuerySet
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from players.api import examples
from players.api.params import CHARACTER, character_or_404
from players.api.serializers import RankingRowSerializer
from players.models import Rating
from players.selectors.rankings import ranked_ratings
from web.api import RankingPagination, documented
from web.caching import cached_get


class Rankings(generics.ListAPIView):
    """Ranked ratings by value: deviation below 75, players neither hidden nor cheaters."""

    serializer_class = RankingRowSerializer
    pagination_class = RankingPagination

    @documented(
        tag="rankings",
        operation_id="rankings",
        summary="Rankings over all characters",
        description="Every ranked rating (deviation below 75, player neither hidden nor a "
        "cheater) by value, 100 a page. Ranks are refreshed periodically.",
        response=RankingRowSerializer(many=True),
        example=examples.RANKING_ROW,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request) -> Response:
        return self.list(request)

    def get_queryset(self) -> QuerySet[Rating]:
        return ranked_ratings()


class CharacterRankings(Rankings):
    @documented(
        tag="rankings",
        operation_id="character_rankings",
        summary="Rankings of one character",
        description="The ranked ratings of one character by value, 100 a page; `rank` is the "
        "rank within the character.",
        parameters=[CHARACTER],
        response=RankingRowSerializer(many=True),
        example=examples.RANKING_ROW,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request, character: str) -> Response:
        return self.list(request)

    def get_queryset(self) -> QuerySet[Rating]:
        return ranked_ratings(character_or_404(self.kwargs["character"]))

    def get_serializer_context(self) -> dict:
        return {**super().get_serializer_context(), "by_character": True}
