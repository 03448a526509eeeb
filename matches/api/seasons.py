"""Seasons: `/api/v1/seasons/` and `/api/v1/seasons/<name>/`."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, OpenApiParameter
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers.seasons import SeasonPageSerializer, SeasonQuery, SeasonSerializer
from matches.models import Season
from matches.selectors.seasons import all_seasons, find_season, season_page, season_state
from web.api import documented, query_parameters
from web.caching import cached_get

SEASON_NAME = OpenApiParameter(
    "name",
    str,
    OpenApiParameter.PATH,
    description="The season's name (see /api/v1/seasons/).",
    examples=[OpenApiExample("a season", value=examples.SEASON["name"])],
)


def _season_fields(season: Season) -> dict[str, Any]:
    return {
        "name": season.name,
        "start": season.start,
        "end": season.end,
        "state": season_state(season, timezone.now().date()),
        "archived_at": season.archived_at,
    }


class SeasonList(APIView):
    @documented(
        tag="seasons",
        operation_id="seasons",
        summary="Every season",
        description="The seasons, the latest first (README.md#seasons).",
        response=SeasonSerializer(many=True),
        example=[examples.SEASON],
    )
    @cached_get
    def get(self, request: Request) -> Response:
        seasons = [_season_fields(season) for season in all_seasons()]
        return Response(SeasonSerializer(seasons, many=True).data)


class SeasonLadder(APIView):
    @documented(
        tag="seasons",
        operation_id="season",
        summary="A season's ladder",
        description="A page of a season's ladder, overall or of one character: the ranked "
        "ratings with at least `min_games` counted games in the season, best first. An "
        "archived season's final standings (the first 1000 of each ladder, as its last day "
        "left them) never change; a live season's ladder is as of the latest refresh.",
        parameters=[SEASON_NAME, SeasonQuery],
        response=SeasonPageSerializer,
        example=examples.SEASON_PAGE,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request, name: str) -> Response:
        query = query_parameters(SeasonQuery, request)
        season = find_season(name)
        if season is None:
            raise NotFound(f"No season named {name}.")
        page = season_page(season, query.get("character"), query["page"])
        data = {
            "season": _season_fields(season),
            "character": page.character,
            "number": page.number,
            "min_games": settings.SEASON_MIN_GAMES,
            "standings": page.standings,
            "more": page.more,
        }
        return Response(SeasonPageSerializer(data).data)
