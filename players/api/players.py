"""A player with every rating, and one rating: `/api/v1/players/<id>/[<char>/]`."""

from __future__ import annotations

from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players.api import examples
from players.api.params import CHARACTER, PLAYER_ID, rating_or_404
from players.api.serializers import PlayerDetailSerializer, RatingDetailSerializer
from players.selectors.rankings import rating_ranks
from players.selectors.ratings import player_detail
from web.api import documented
from web.caching import cached_get


class PlayerDetailView(APIView):
    @documented(
        tag="players",
        operation_id="player",
        summary="A player with every rating",
        description="The player, their ratings on every character played and their past names.",
        parameters=[PLAYER_ID],
        response=PlayerDetailSerializer,
        example=examples.PLAYER_DETAIL,
        errors=[404],
    )
    @cached_get
    def get(self, request: Request, player_id: str) -> Response:
        detail = player_detail(player_id)
        if detail is None:
            raise NotFound(f"No player {player_id}.")
        return Response(PlayerDetailSerializer(detail).data)


class RatingDetailView(APIView):
    @documented(
        tag="ratings",
        operation_id="rating",
        summary="One rating with ranks, peak and best win",
        description="A player's rating on one character with W-L, ranks, peak and best win.",
        parameters=[PLAYER_ID, CHARACTER],
        response=RatingDetailSerializer,
        example=examples.RATING,
        errors=[404],
    )
    @cached_get
    def get(self, request: Request, player_id: str, character: str) -> Response:
        rating = rating_or_404(player_id, character)
        rating.ranks = rating_ranks(rating)
        return Response(RatingDetailSerializer(rating).data)
