"""How a head-to-head and the players a rating meets most look in the API, and the query
parameters of those endpoints (matches.api.rivals)."""

from __future__ import annotations

from rest_framework import serializers

from matches.api.serializers.calculator import ForecastSerializer
from matches.api.serializers.profile import CursorField, GameSerializer
from matches.selectors.rivals import HeadToHead, Meeting
from players.api.serializers import CharacterSerializer, PlayerSummarySerializer
from players.models import CHARACTER_CODE_PATTERN

MEETINGS_LIMIT = 50


class HeadToHeadQuery(serializers.Serializer):
    # A plain code rather than an enum: the roster is data (docs/roster.md), and the
    # committed schema cannot list characters added in the admin after it was written.
    character = serializers.RegexField(
        CHARACTER_CODE_PATTERN,
        required=False,
        help_text="The opponent's character the next game's chance is for (one they have a "
        "rating on), by its code as `/api/v1/characters/` lists them (404 when they have "
        "none on it); by default the one they last played against this rating, else their "
        "most played.",
    )
    cursor = CursorField(required=False, help_text="Older sets: the `next` link carries it.")


class MeetingsQuery(serializers.Serializer):
    limit = serializers.IntegerField(
        min_value=1,
        max_value=MEETINGS_LIMIT,
        default=10,
        help_text=f"How many opponents at most (1-{MEETINGS_LIMIT}).",
    )


class TallySerializer(serializers.Serializer):
    wins = serializers.IntegerField(help_text="Won by the first player.")
    losses = serializers.IntegerField(help_text="Lost by the first player.")


class RecordSerializer(serializers.Serializer):
    """A record from the first player's side; its three parts add up to it."""

    games = serializers.IntegerField(help_text="Every game between them.")
    wins = serializers.IntegerField(help_text="Won by the first player, counted or not.")
    losses = serializers.IntegerField(help_text="Lost by the first player, counted or not.")
    counted = TallySerializer(help_text="The games that moved ratings.")
    uncounted = TallySerializer(
        help_text="The games rated but moving no rating (lopsided games between established "
        "players)."
    )
    pending = TallySerializer(help_text="The games not rated yet.")


class CharacterPairRecordSerializer(serializers.Serializer):
    character = CharacterSerializer(help_text="The first player's character.")
    opponent_character = CharacterSerializer(help_text="The opponent's character.")
    record = RecordSerializer(help_text="Their games with these two characters.")


class GameSetSerializer(serializers.Serializer):
    """Games in a row against the opponent with one character, as the match history
    groups them."""

    opponent_character = CharacterSerializer(help_text="The opponent's character.")
    wins = serializers.IntegerField(help_text="Games of the set this rating won.")
    losses = serializers.IntegerField(help_text="Games of the set this rating lost.")
    change = serializers.FloatField(
        allow_null=True, help_text="The set's total rating change; null while a game is unrated."
    )
    expected_wins = serializers.FloatField(
        allow_null=True,
        help_text="The wins its games' shown `win_probability` add up to; null while a game "
        "is unrated.",
    )
    games = GameSerializer(many=True, help_text="Newest first.")


class HeadToHeadSerializer(serializers.Serializer):
    player = PlayerSummarySerializer(source="rating.player", help_text="The first player.")
    character = CharacterSerializer(
        source="rating.character", help_text="The first player's character of the sets."
    )
    opponent = PlayerSummarySerializer(help_text="The second player.")
    opponent_character = CharacterSerializer(
        source="opponent_rating.character",
        help_text="The opponent's character the next game's chance is for.",
    )
    record = RecordSerializer(
        source="total", help_text="Every game between them, every character of both."
    )
    by_characters = CharacterPairRecordSerializer(
        many=True, help_text="The same per pair of characters, most games first."
    )
    next_game = ForecastSerializer(
        source="forecast",
        help_text="The next game, as `/api/v1/probability/` forecasts it: `a` the first "
        "player's rating, `b` the opponent's.",
    )
    next = serializers.SerializerMethodField(help_text="Older sets; null on the last page.")
    sets = GameSetSerializer(
        source="sets.sets",
        many=True,
        help_text="This rating's sets against the opponent, newest first, as its match "
        "history groups them (about 50 games a page, a set never cut in two).",
    )

    def get_next(self, found: HeadToHead) -> str | None:
        return self.context["next"]


class MeetingSerializer(serializers.Serializer):
    player = PlayerSummarySerializer(source="*", help_text="The opponent.")
    games = serializers.IntegerField(help_text="Games against them among the window's.")
    wins = serializers.IntegerField(help_text="Of those, won by this rating.")
    losses = serializers.IntegerField(help_text="Of those, lost by this rating.")
    head_to_head = serializers.SerializerMethodField(
        help_text="The head-to-head against them (`/api/v1/players/<id>/<char>/vs/<id>/`)."
    )

    def get_head_to_head(self, meeting: Meeting) -> str:
        return self.context["head_to_head"](meeting.id)


class MeetingsSerializer(serializers.Serializer):
    player = PlayerSummarySerializer(source="rating.player", help_text="Whose rating.")
    character = CharacterSerializer(source="rating.character", help_text="Played as.")
    window = serializers.IntegerField(
        help_text="How many of the rating's newest games are counted (a site constant)."
    )
    opponents = MeetingSerializer(
        many=True,
        help_text="Most games first (ties: met most recently first); never hidden players "
        "or cheaters.",
    )
