"""A rating's history, games, matchups and fair opponents:
`/api/v1/players/<id>/<char>/{history,matches,matchups,placement,opponents}/`."""

from __future__ import annotations

from django.conf import settings
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers.patches import RatingPatchQuery
from matches.api.serializers.profile import (
    FairOpponentsSerializer,
    GamePageSerializer,
    HistoryQuery,
    MatchesQuery,
    OpponentsQuery,
    PlacementSerializer,
    RatingHistorySerializer,
    RatingMatchupsSerializer,
)
from matches.selectors.history_points import rating_history
from matches.selectors.match_history import rating_games
from matches.selectors.matchups import player_matchups, rating_patch_matchups
from matches.selectors.opponents import fair_opponents
from matches.selectors.profile import unranked
from players.api.params import CHARACTER, PLAYER_ID, character_or_404, rating_or_404
from players.selectors.ratings import characters, rating_overview
from web.api import documented, query_parameters
from web.caching import cached_get


class RatingHistoryView(APIView):
    @documented(
        tag="ratings",
        operation_id="rating_history",
        summary="A rating over time",
        description="Per game (the rating after each game over the last 7 or 30 days of play, "
        "at most 1000 games), or with `daily=1` one point per day played over the whole "
        "history. Every game, with the rating before it and its change, is in `matches/`. "
        "None for a cheater.",
        parameters=[PLAYER_ID, CHARACTER, HistoryQuery],
        response=RatingHistorySerializer,
        example=examples.HISTORY,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request, player_id: str, character: str) -> Response:
        query = query_parameters(HistoryQuery, request)
        rating = rating_or_404(player_id, character)
        # A cheater's ratings are recomputed without their games: no line to draw.
        points = (
            []
            if rating.player.cheater
            else rating_history(rating, "all" if query["daily"] else query["range"])
        )
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
    @cached_get
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


class RatingMatchupsView(APIView):
    @documented(
        tag="ratings",
        operation_id="rating_matchups",
        summary="How a rating fares against each character",
        description="How many rating points each matchup is worth to this rating (an offset "
        "with its standard error and 95% interval, docs/rating-model.md#matchups), with W-L "
        "and the wins its pre-game ratings alone predicted, per opposing character met and "
        "overall; of one patch's games with `patch` (docs/rating-model.md#patches).",
        parameters=[PLAYER_ID, CHARACTER, RatingPatchQuery],
        response=RatingMatchupsSerializer,
        example=examples.RATING_MATCHUPS,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request, player_id: str, character: str) -> Response:
        patch = query_parameters(RatingPatchQuery, request)["patch"].patch
        overview = rating_overview(player_id, character_or_404(character).code)
        if overview is None:
            raise NotFound(f"No rating of player {player_id} on {character}.")
        rows = overview.matchups
        if patch is not None:
            rows = rating_patch_matchups(player_id, overview.rating.character_id, patch)
        matchups = player_matchups(rows)
        return Response(
            RatingMatchupsSerializer({"rating": overview.rating, "matchups": matchups}).data
        )


class RatingPlacementView(APIView):
    @documented(
        tag="ratings",
        operation_id="rating_placement",
        summary="How far a rating is from being ranked",
        description="Whether the rating is ranked, and if not why and how many games would "
        "rank it: the games against settled players of its level that take its deviation "
        "below the ranking limit, and the more different opponents, settled when they play "
        'it, it must meet (the profile\'s "Unranked: …").',
        parameters=[PLAYER_ID, CHARACTER],
        response=PlacementSerializer,
        example=examples.PLACEMENT,
        errors=[404],
    )
    @cached_get
    def get(self, request: Request, player_id: str, character: str) -> Response:
        why = unranked(rating_or_404(player_id, character))
        data = {
            "ranked": why is None,
            "flag": None if why is None else why.flag,
            "games_to_rank": 0 if why is None else why.games,
            "idle_since": None if why is None else why.idle_since,
            "widest": why is not None and why.widest,
            "opponents_to_rank": 0 if why is None else why.opponents,
        }
        return Response(PlacementSerializer(data).data)


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
    @cached_get
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
