"""The roster: `/api/v1/characters/`."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players.api import examples
from players.api.serializers import CharacterListSerializer
from players.selectors.ratings import characters
from web.api import documented
from web.caching import cached_get


class CharacterList(APIView):
    @documented(
        tag="characters",
        operation_id="characters",
        summary="The roster",
        description="Every character, with the code and id that URLs accept.",
        response=CharacterListSerializer,
        example=examples.CHARACTERS,
    )
    @cached_get
    def get(self, request: Request) -> Response:
        return Response(CharacterListSerializer({"results": characters()}).data)
