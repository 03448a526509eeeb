"""Rankings: `/api/v1/rankings/[<char>/]`, ordered by the ratings of the moment."""

from __future__ import annotations

from datetime import timedelta

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.utils import timezone
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from players.api import examples
from players.api.params import CHARACTER, character_or_404
from players.api.serializers import CharacterRankingQuery, RankingQuery, RankingRowSerializer
from players.models import Character, Rating
from players.selectors.rankings import ranked_count, ranked_ratings
from web.api import RankingPagination, documented, query_parameters
from web.caching import cached_get

ORDER = (
    "Ranked: deviation below 75, player neither hidden nor a cheater. Ordered by value as it "
    "is now (ties by rating id), 100 a page; `rank` is the position in this list."
)


class _RankingsPagination(RankingPagination):
    """Pages whose total may be known beforehand: a whole ranking is counted on its index
    (players.selectors.rankings.ranked_count) rather than by joining every rating to its
    player."""

    known_count: int | None = None

    def django_paginator_class(self, object_list: QuerySet[Rating], per_page: int) -> Paginator:
        paginator = Paginator(object_list, per_page)
        if self.known_count is not None:
            paginator.count = self.known_count
        return paginator


class Rankings(generics.ListAPIView):
    """Ranked ratings by value: deviation below 75, players neither hidden nor cheaters."""

    serializer_class = RankingRowSerializer
    pagination_class = _RankingsPagination

    @documented(
        tag="rankings",
        operation_id="rankings",
        summary="Rankings over all characters",
        description=ORDER,
        parameters=[RankingQuery],
        response=RankingRowSerializer(many=True),
        example=examples.RANKING_ROW,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request) -> Response:
        return self.list(request)

    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        """A page of ratings, each numbered by its position in the whole list."""
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        for rank, rating in enumerate(page, start=self.paginator.page.start_index()):
            rating.rank = rank
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def ranked(self, character: Character | None) -> QuerySet[Rating]:
        query = query_parameters(RankingQuery, self.request)
        days = query.get("active")
        if not days and query.get("per") is None:
            self.paginator.known_count = ranked_count(character)
        return ranked_ratings(
            character,
            one_per_player=query.get("per") == "player",
            active_since=timezone.now() - timedelta(days=days) if days else None,
        )

    def get_queryset(self) -> QuerySet[Rating]:
        return self.ranked(None)


class CharacterRankings(Rankings):
    @documented(
        tag="rankings",
        operation_id="character_rankings",
        summary="Rankings of one character",
        description=ORDER,
        parameters=[CHARACTER, CharacterRankingQuery],
        response=RankingRowSerializer(many=True),
        example=examples.RANKING_ROW,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request, character: str) -> Response:
        return self.list(request)

    def get_queryset(self) -> QuerySet[Rating]:
        return self.ranked(character_or_404(self.kwargs["character"]))
