"""Rankings: `/api/v1/rankings/[<char>/]`, ordered by the ratings of the moment."""

from __future__ import annotations

from datetime import timedelta

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.utils import timezone
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from players.api import examples
from players.api.params import CHARACTER, character_or_404
from players.api.serializers import CharacterRankingQuery, RankingQuery, RankingRowSerializer
from players.models import Character, Rating
from players.selectors.rankings import (
    RankedRow,
    ranked_ratings,
    ranked_rows,
    ranked_rows_counted,
)
from web.api import RankingPagination, documented, query_parameters
from web.caching import cached_get

ORDER = (
    "Ranked: deviation below 75, player neither hidden nor a cheater. Ordered by value as it "
    "is now (ties by rating id), 100 a page; `rank` is the position in this list."
)


class _RankedPaginator(Paginator):
    """Pages of a ranking read by `ranked_rows`, each row numbered by its rank; the page
    read with the count (`read`: its first row's index and its rows) is not read again."""

    read: tuple[int, list[RankedRow]] | None = None

    def page(self, number: int | str) -> Page:
        number = self.validate_number(number)
        start = (number - 1) * self.per_page
        if self.read is not None and self.read[0] == start:
            rows = self.read[1]
        else:  # another page than the number asked for (`?page=last`)
            rows = ranked_rows(self.object_list, start, start + self.per_page)
        return self._get_page(rows, number, self)


# Ranked ratings a rankings request counts at least (more when its page ends further on).
RANKINGS_COUNTED = 1000
# A page number beyond any ranking, to keep the bound a number PostgreSQL takes as a limit.
PAGES_COUNTED_AT_MOST = 10**9


class _RankingsPagination(RankingPagination):
    """Pages whose total is counted only as far as needed: to the requested page's end,
    and at least RANKINGS_COUNTED, plus one. Counting every ranked rating read the whole
    ranking for each page; past that point the response says `count_exact: false`, and
    `count` is how many were counted, so that there are at least that many."""

    count_exact = True
    page_wanted = 1

    def paginate_queryset(
        self, queryset: QuerySet[Rating], request: Request, view: object = None
    ) -> list[RankedRow] | None:
        raw = request.query_params.get(self.page_query_param, "")
        # DRF answers any other value; past every page, counting ends at the total anyway.
        self.page_wanted = min(int(raw), PAGES_COUNTED_AT_MOST) if raw.isdigit() else 1
        return super().paginate_queryset(queryset, request, view)

    def django_paginator_class(self, object_list: QuerySet[Rating], per_page: int) -> Paginator:
        paginator = _RankedPaginator(object_list, per_page)
        bound = max(RANKINGS_COUNTED, self.page_wanted * per_page)
        # The page asked for is read with the count, in one query (page 1's for `?page=0`,
        # which is refused after).
        start = max(self.page_wanted - 1, 0) * per_page
        rows, counted = ranked_rows_counted(object_list, start, start + per_page, bound)
        paginator.read = (start, rows)
        self.count_exact = counted <= bound
        paginator.count = counted
        return paginator

    def get_paginated_response(self, data: object) -> Response:
        response = super().get_paginated_response(data)
        response.data["count_exact"] = self.count_exact
        return response

    def get_paginated_response_schema(self, schema: dict[str, object]) -> dict[str, object]:
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"]["count"]["description"] = (
            "How many results there are on all pages; at least this many when `count_exact` "
            "is false."
        )
        paginated["properties"]["count_exact"] = {
            "type": "boolean",
            "example": True,
            "description": f"false: counting stopped past this page and past {RANKINGS_COUNTED} "
            "results, and there are at least `count`.",
        }
        paginated["required"] = [*paginated.get("required", []), "count_exact"]
        return paginated


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

    def ranked(self, character: Character | None) -> QuerySet[Rating]:
        query = query_parameters(RankingQuery, self.request)
        days = query.get("active")
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
