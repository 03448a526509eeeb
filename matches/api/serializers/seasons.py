"""How seasons and their ladders look in the API, and the ladder's query parameters
(matches.api.seasons)."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.exceptions import NotFound

from players.api.serializers import CharacterSerializer
from players.models import CHARACTER_CODE_PATTERN
from players.selectors.ratings import characters


class SeasonQuery(serializers.Serializer):
    # A plain code rather than an enum: the roster is data (docs/roster.md).
    character = serializers.RegexField(
        CHARACTER_CODE_PATTERN,
        required=False,
        help_text="A character's code (see /api/v1/characters/): that character's ladder; "
        "absent: the overall ladder.",
    )
    page = serializers.IntegerField(
        min_value=1,
        max_value=100,
        default=1,
        help_text="The page, from 1, of 100 places each (a ladder keeps 1000 places by "
        "default: pages past its end are empty).",
    )

    def validate_character(self, code: str) -> object:
        found = next((c for c in characters() if c.code == code), None)
        if found is None:  # as for any resource that does not exist (docs/roster.md)
            raise NotFound(f"No character has the code {code!r}.")
        return found


class SeasonSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The season's name, as in /seasons/<name>.")
    start = serializers.DateField(help_text="Its first day (UTC).")
    end = serializers.DateField(help_text="Its last day (UTC), included.")
    state = serializers.ChoiceField(
        choices=["archived", "ended", "live", "upcoming"],
        help_text="`archived`: final standings kept and never changed; `ended`: kept at the "
        "next refresh; `live`: under way, the ladder as of the latest refresh; `upcoming`.",
    )
    archived_at = serializers.DateTimeField(
        allow_null=True, help_text="When its final standings were kept."
    )


class SeasonStandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="The place on this ladder, from 1.")
    player_id = serializers.CharField(help_text="The player's id.")
    name = serializers.CharField(help_text="The player's name at the season's end (live: now).")
    character = CharacterSerializer(help_text="The rating's character.")
    value = serializers.FloatField(help_text="The rating at the season's end (live: now).")
    deviation = serializers.FloatField(help_text="Its deviation then (the ± shown is twice it).")
    games = serializers.IntegerField(help_text="Counted games played in the season.")


class SeasonPageSerializer(serializers.Serializer):
    season = SeasonSerializer(help_text="The season.")
    character = CharacterSerializer(allow_null=True, help_text="null: the overall ladder.")
    page = serializers.IntegerField(source="number", help_text="This page's number, from 1.")
    min_games = serializers.IntegerField(
        help_text="Counted games in the season a rating needs to be listed (SEASON_MIN_GAMES)."
    )
    standings = SeasonStandingSerializer(many=True, help_text="This page's places, in order.")
    more = serializers.BooleanField(help_text="Another page follows.")
