"""API views about games, histories, matchups, forecasts and statistics: each calls one selector."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers import (
    ForecastSerializer,
    GamePageSerializer,
    HistoryQuery,
    MatchesQuery,
    MatchupMatrixSerializer,
    MatchupsQuery,
    ProbabilityQuery,
    RatingHistorySerializer,
    SiteStatisticsSerializer,
)
from matches.selectors import (
    Contender,
    matchup_matrix,
    rating_games,
    rating_history,
    site_statistics,
    win_forecast,
)
from players.api.views import CHARACTER, PLAYER_ID, rating_or_404
from ratingsite.api import cached_by_generation, documented, query_parameters


class RatingHistoryView(APIView):
    @documented(
        tag="ratings",
        operation_id="rating_history",
        summary="A rating over time",
        description="Per game (the rating after each game over the last 7 or 30 days of play, "
        "at most 1000 games), or with `daily=1` one point per day played over the whole "
        "history. Every game, with the rating before it and its change, is in `matches/`.",
        parameters=[PLAYER_ID, CHARACTER, HistoryQuery],
        response=RatingHistorySerializer,
        example=examples.HISTORY,
        errors=[400, 404],
    )
    @cached_by_generation
    def get(self, request: Request, player_id: str, character: str) -> Response:
        query = query_parameters(HistoryQuery, request)
        rating = rating_or_404(player_id, character)
        points = rating_history(rating, "all" if query["daily"] else query["range"])
        return Response(
            RatingHistorySerializer(
                {"rating": rating, "daily": query["daily"], "points": points}
            ).data
        )


class RatingMatchesView(APIView):
    @documented(
        tag="ratings",
        operation_id="rating_matches",
        summary="A rating's games",
        description="The games played with this rating, newest first, a page at a time: follow "
        "`next` (a cursor on the game's time and id, stable while new games arrive).",
        parameters=[PLAYER_ID, CHARACTER, MatchesQuery],
        response=GamePageSerializer,
        example=examples.GAME_PAGE,
        errors=[400, 404],
    )
    @cached_by_generation
    def get(self, request: Request, player_id: str, character: str) -> Response:
        query = query_parameters(MatchesQuery, request)
        page = rating_games(
            rating_or_404(player_id, character),
            before=query.get("cursor"),
            opponent_id=query.get("opponent"),
            since=query.get("since"),
            games=query["page_size"],
        )
        next_url = None
        if page.next_cursor is not None:
            next_url = replace_query_param(
                request.build_absolute_uri(), "cursor", str(page.next_cursor)
            )
        return Response(GamePageSerializer({"next": next_url, "results": page.games}).data)


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
    @cached_by_generation
    def get(self, request: Request) -> Response:
        query = query_parameters(MatchupsQuery, request)
        return Response(MatchupMatrixSerializer(matchup_matrix(query["bracket"])).data)


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
    @cached_by_generation
    def get(self, request: Request) -> Response:
        query = query_parameters(ProbabilityQuery, request)
        forecast = win_forecast(_contender(query["a"]), _contender(query["b"]))
        return Response(ForecastSerializer(forecast).data)


class StatisticsView(APIView):
    @documented(
        tag="stats",
        operation_id="stats",
        summary="Site statistics",
        description="Totals, games per day, rating and floor distributions and character "
        "popularity, as of the latest periodic refresh.",
        response=SiteStatisticsSerializer,
        example=examples.STATISTICS,
    )
    @cached_by_generation
    def get(self, request: Request) -> Response:
        return Response(SiteStatisticsSerializer(site_statistics()).data)
