"""Rivals: a head-to-head, `/api/v1/players/<id>/<char>/vs/<id>/`, and the players a rating
meets most, `/api/v1/players/<id>/<char>/rivals/`."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiExample, OpenApiParameter
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from matches.api import examples
from matches.api.serializers.rivals import (
    HeadToHeadQuery,
    HeadToHeadSerializer,
    MeetingsQuery,
    MeetingsSerializer,
)
from matches.selectors.rivals import MEETINGS_WINDOW, head_to_head, players_met_most
from players.api.converters import PlayerIdConverter
from players.api.examples import OPPONENT_ID as EXAMPLE_OPPONENT_ID
from players.api.params import CHARACTER, PLAYER_ID, character_or_404, rating_or_404
from web.api import documented, query_parameters
from web.caching import cached_get

OPPONENT_ID = OpenApiParameter(
    "opponent_id",
    str,
    OpenApiParameter.PATH,
    description="The other player's id.",
    pattern=f"^{PlayerIdConverter.regex}$",
    examples=[OpenApiExample("another player", value=EXAMPLE_OPPONENT_ID)],
)


class HeadToHeadView(APIView):
    @documented(
        tag="ratings",
        operation_id="head_to_head",
        summary="Two players against each other",
        description="Every game between two players, with every character of both (counted, "
        "not counted and not yet rated apart), the next game's chance as "
        "`/api/v1/probability/` gives it for this rating against one of the opponent's, "
        "and this rating's sets against them as its match history groups them. 404 when "
        "either player is hidden or a cheater.",
        parameters=[PLAYER_ID, CHARACTER, OPPONENT_ID, HeadToHeadQuery],
        response=HeadToHeadSerializer,
        example=examples.HEAD_TO_HEAD,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request, player_id: str, character: str, opponent_id: str) -> Response:
        query = query_parameters(HeadToHeadQuery, request)
        found = head_to_head(
            player_id,
            character_or_404(character).code,
            opponent_id,
            opponent_character_code=query.get("character"),
            before=query.get("cursor"),
        )
        if found is None:
            raise NotFound(
                f"No head-to-head of player {player_id} on {character} against {opponent_id}."
            )
        next_cursor = found.sets.next_cursor
        next_url = None
        if next_cursor is not None:
            next_url = replace_query_param(request.build_absolute_uri(), "cursor", str(next_cursor))
        return Response(HeadToHeadSerializer(found, context={"next": next_url}).data)


class MeetingsView(APIView):
    @documented(
        tag="ratings",
        operation_id="rating_rivals",
        summary="The players a rating meets most",
        description=f"The opponents of this rating's newest {MEETINGS_WINDOW} games, most "
        "games first, with its W-L against them and the way to the head-to-head.",
        parameters=[PLAYER_ID, CHARACTER, MeetingsQuery],
        response=MeetingsSerializer,
        example=examples.RIVALS,
        errors=[400, 404],
    )
    @cached_get
    def get(self, request: Request, player_id: str, character: str) -> Response:
        query = query_parameters(MeetingsQuery, request)
        rating = rating_or_404(player_id, character)
        if rating.player.cheater:
            raise NotFound(f"Player {player_id} is flagged as a cheater: no rivals to show.")
        code = rating.character.code

        def head_to_head_url(opponent_id: str) -> str:
            return request.build_absolute_uri(
                reverse("v1:head-to-head", args=[player_id, code, opponent_id])
            )

        meetings = players_met_most(rating, shown=query["limit"])
        data = {"rating": rating, "window": MEETINGS_WINDOW, "opponents": meetings}
        context = {"head_to_head": head_to_head_url}
        return Response(MeetingsSerializer(data, context=context).data)
