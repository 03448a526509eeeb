"""An owner's own data: `/api/v1/me/games/` and `/api/v1/me/ratings/`, with the owner key
(players.api.owner), never cached: every game and day-end rating of their accounts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView

from matches.api.serializers.owner_data import OwnerGameSerializer, OwnerRatingDaySerializer
from matches.selectors.owner_data import owner_games
from players.api.owner import OwnerKeyAuthentication, OwnerRateThrottle
from players.export import rating_history
from players.selectors.ownership import linked_accounts
from web.api import error_responses

GAME_EXAMPLE = {
    "player_id": "230129212655563979",
    "character": "SO",
    "played_at": "2026-11-20T18:02:11+00:00",
    "result": "win",
    "opponent_id": "",
    "opponent": "a private player",
    "opponent_character": "KY",
    "rating_before": 1612.4,
    "deviation_before": 61.2,
    "change": 7.9,
    "opponent_rating_before": 1655.0,
    "counted": True,
}
RATING_DAY_EXAMPLE = {
    "player_id": "230129212655563979",
    "character": "SO",
    "day": "2026-11-20",
    "value": 1620.3,
    "deviation": 60.8,
}


class OwnerDataView(APIView):
    authentication_classes = [OwnerKeyAuthentication]
    throttle_classes = [AnonRateThrottle, OwnerRateThrottle]
    read: Callable[[list[str]], Iterator[dict[str, Any]]]

    def get(self, request: Request) -> Response:
        if request.auth is None:
            raise NotAuthenticated("Give Authorization: Key <player id>:<owner key>.")
        ownership = request.auth
        player_ids = [ownership.player_id, *(p.id for p in linked_accounts(ownership))]
        return Response(list(type(self).read(player_ids)))


def _documented(operation_id: str, summary: str, serializer: type, example: dict) -> Callable:
    return extend_schema(
        operation_id=operation_id,
        tags=["owner"],
        summary=summary,
        description="Your own data, linked accounts included (private ones too), with your "
        "owner key; throttled per owner at a higher rate than anonymous clients.",
        responses={200: serializer(many=True), **error_responses(401)},
        examples=[OpenApiExample(summary, value=[example], response_only=True, status_codes=[200])],
    )


class OwnerGamesView(OwnerDataView):
    read = staticmethod(owner_games)

    @_documented("owner-games", "Every game of your accounts", OwnerGameSerializer, GAME_EXAMPLE)
    def get(self, request: Request) -> Response:
        return super().get(request)


class OwnerRatingsView(OwnerDataView):
    read = staticmethod(rating_history)

    @_documented(
        "owner-ratings", "Your ratings day by day", OwnerRatingDaySerializer, RATING_DAY_EXAMPLE
    )
    def get(self, request: Request) -> Response:
        return super().get(request)
