"""API views about games, histories, matchups, forecasts, statistics, fair opponents and the
rating systems lab: each calls one selector or service read."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers import (
    FairOpponentsSerializer,
    ForecastSerializer,
    GamePageSerializer,
    HistoryQuery,
    LabReportSerializer,
    MatchesQuery,
    MatchupMatrixSerializer,
    MatchupsQuery,
    OpponentsQuery,
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
from matches.services.evaluation import latest_lab_report
from matches.services.opponents import fair_opponents
from players.api.views import CHARACTER, PLAYER_ID, rating_or_404
from players.selectors import characters
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


class RatingOpponentsView(APIView):
    @documented(
        tag="ratings",
        operation_id="rating_opponents",
        summary="Fair opponents for a rating",
        description="The recently active ratings (played within `active_days`) this rating "
        "would have the most even games against: P(win), using both deviations, nearest 0.5, "
        "ties to the better-known (lower-deviation) rating. Any character; never the player's "
        "own ratings, hidden players or cheaters.",
        parameters=[PLAYER_ID, CHARACTER, OpponentsQuery],
        response=FairOpponentsSerializer,
        example=examples.OPPONENTS,
        errors=[400, 404],
    )
    @cached_by_generation
    def get(self, request: Request, player_id: str, character: str) -> Response:
        query = query_parameters(OpponentsQuery, request)
        rating = rating_or_404(player_id, character)
        found = fair_opponents(rating.player_id, rating.character_id, query["limit"])
        roster = {played.code: played for played in characters()}
        opponents = [{**row, "character": roster[row["character"]]} for row in found]
        return Response(
            FairOpponentsSerializer(
                {
                    "target": rating,
                    "active_days": settings.FAIR_OPPONENT_DAYS,
                    "opponents": opponents,
                }
            ).data
        )


NO_LAB_REPORT = (
    "No lab report yet: the rating systems have not been evaluated. One appears after the "
    "periodic evaluation (or `manage.py evaluate_ratings`) has run."
)


class LabView(APIView):
    @documented(
        tag="lab",
        operation_id="lab",
        summary="How well each rating system predicts",
        description="The latest evaluation of the rating systems on the stored games (Glicko "
        "as the site runs it, Glicko-2, Elo, TrueSkill, Moonstone): each game in time order is "
        "predicted before the systems learn its result; log loss, Brier score, accuracy and a "
        "calibration table per system, over all games and over games between established "
        "ratings. Refreshed by a periodic task; 404 until the first evaluation has run.",
        response=LabReportSerializer,
        example=examples.LAB,
        errors=[404],
        error_details={404: ("No evaluation has been computed yet.", NO_LAB_REPORT)},
    )
    @cached_by_generation
    def get(self, request: Request) -> Response:
        report = latest_lab_report()
        if report is None:
            raise NotFound(NO_LAB_REPORT)
        return Response(LabReportSerializer(report).data)
