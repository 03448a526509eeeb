"""The path parameters every rating resource shares, and their lookups (404 in the error shape)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter
from rest_framework.exceptions import NotFound

from players.api import examples
from players.api.converters import CharacterConverter, PlayerIdConverter
from players.models import Character, Rating
from players.selectors.ratings import character_by_key, rating_of

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
    rating = rating_of(player_id, character)
    if rating is None:
        raise NotFound(f"No rating of player {player_id} on {character.name}.")
    return rating
