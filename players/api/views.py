"""API views about players, characters, ratings and rankings: each calls one selector."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, OpenApiParameter
from rest_framework import generics
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players.api import examples
from players.api.converters import CharacterConverter, PlayerIdConverter
from players.api.serializers import (
    CharacterListSerializer,
    PlayerDetailSerializer,
    PlayerSearchSerializer,
    RankingRowSerializer,
    RatingDetailSerializer,
    RatingMatchupsSerializer,
    SearchQuery,
)
from players.models import Character, Rating
from players.selectors import (
    character_by_key,
    characters,
    player_detail,
    ranked_ratings,
    rating_of,
    rating_overview,
    search_players,
)
from ratingsite.api import (
    RankingPagination,
    cached_by_generation,
    documented,
    query_parameters,
)

PLAYER_ID = OpenApiParameter(
    "player_id",
    str,
    OpenApiParameter.PATH,
    description="The game's player id, as a string of digits.",
    pattern=f"^{PlayerIdConverter.regex}$",
    examples=[OpenApiExample("a player", value=examples.PLAYER_ID)],
)
CHARACTER = OpenApiParameter(
    "character",
    str,
    OpenApiParameter.PATH,
    description="A character's short code (any case, e.g. `SO` or `so`) or numeric id (`0`).",
    pattern=f"^{CharacterConverter.regex}$",
    examples=[OpenApiExample("Sol", value="SO")],
)


def character_or_404(key: str) -> Character:
    character = character_by_key(key)
    if character is None:
        raise NotFound(f"No character {key!r}; see /api/v1/characters/.")
    return character


def rating_or_404(player_id: str, character_key: str) -> Rating:
    """A visible player's rating on a character; 404 for unknown or hidden players alike."""
    character = character_or_404(character_key)
    rating = rating_of(player_id, character.code)
    if rating is None:
        raise NotFound(f"No rating of player {player_id} on {character.name}.")
    return rating


class CharacterList(APIView):
    @documented(
        tag="characters",
        operation_id="characters",
        summary="The roster",
        description="Every character, with the code and id that URLs accept.",
        response=CharacterListSerializer,
        example=examples.CHARACTERS,
    )
    @cached_by_generation
    def get(self, request: Request) -> Response:
        return Response(CharacterListSerializer({"results": characters()}).data)


class PlayerSearch(APIView):
    @documented(
        tag="players",
        operation_id="players_search",
        summary="Search players by name",
        description="Visible players whose current or any past name contains `name` "
        "(case-insensitive), best match first, each with all their ratings.",
        parameters=[SearchQuery],
        response=PlayerSearchSerializer,
        example=examples.SEARCH,
        errors=[400],
    )
    @cached_by_generation
    def get(self, request: Request) -> Response:
        query = query_parameters(SearchQuery, request)
        hits = search_players(query["name"], limit=query["limit"])
        return Response(PlayerSearchSerializer({"results": hits}).data)


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
    @cached_by_generation
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
    @cached_by_generation
    def get(self, request: Request, player_id: str, character: str) -> Response:
        return Response(RatingDetailSerializer(rating_or_404(player_id, character)).data)


class RatingMatchupsView(APIView):
    @documented(
        tag="ratings",
        operation_id="rating_matchups",
        summary="How a rating fares against each character",
        description="W-L and a matchup rating of this player's character against each "
        "opposing character met.",
        parameters=[PLAYER_ID, CHARACTER],
        response=RatingMatchupsSerializer,
        example=examples.RATING_MATCHUPS,
        errors=[404],
    )
    @cached_by_generation
    def get(self, request: Request, player_id: str, character: str) -> Response:
        overview = rating_overview(player_id, character_or_404(character).code)
        if overview is None:
            raise NotFound(f"No rating of player {player_id} on {character}.")
        return Response(RatingMatchupsSerializer(overview).data)


class Rankings(generics.ListAPIView):
    """Ranked ratings by value: deviation below 75, players neither hidden nor cheaters."""

    serializer_class = RankingRowSerializer
    pagination_class = RankingPagination
    filter_backends: list = []

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
    @cached_by_generation
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
    @cached_by_generation
    def get(self, request: Request, character: str) -> Response:
        return self.list(request)

    def get_queryset(self) -> QuerySet[Rating]:
        return ranked_ratings(character_or_404(self.kwargs["character"]))

    def get_serializer_context(self) -> dict:
        return {**super().get_serializer_context(), "by_character": True}
