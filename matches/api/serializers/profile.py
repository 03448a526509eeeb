"""How a rating's history, games, matchups and fair opponents look in the API, and the
query parameters of those endpoints (matches.api.profile)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from matches.api.serializers.matchups import MatchupEstimateSerializer
from matches.selectors.history_points import HISTORY_RANGES
from matches.selectors.match_history import GameCursor, RatedGame
from matches.selectors.matchups import PlayerMatchupRow
from players.api.converters import PlayerIdConverter
from players.api.fields import RatingField, ShownNameField, TierField
from players.api.serializers import (
    SHOWN_NAME_HELP,
    CharacterSerializer,
    PlayerSummarySerializer,
)


class HistoryQuery(serializers.Serializer):
    daily = serializers.BooleanField(
        default=False,
        help_text="`1`: one point a day played, the whole history (daily snapshots). "
        "Otherwise one point per game over `range`.",
    )
    range = serializers.ChoiceField(
        choices=[key for key, span in HISTORY_RANGES.items() if span is not None],
        default="30d",
        help_text="For per-game history: how far back from the latest game (at most the "
        "latest 1000 games).",
    )


class CursorField(serializers.RegexField):
    """The cursor of a `next` link: microseconds since the epoch and a game id."""

    def __init__(self, **kwargs: Any) -> None:
        # At most 16 digits of microseconds (year 2286) and 18 of id (a bigint) always parse.
        super().__init__(r"^[0-9]{1,16}-[0-9]{1,18}$", trim_whitespace=False, **kwargs)

    def run_validation(self, data: Any = serializers.empty) -> GameCursor:
        return GameCursor.parse(super().run_validation(data))


class MatchesQuery(serializers.Serializer):
    cursor = CursorField(
        required=False, help_text="Where to go on from: the `next` link carries it."
    )
    page_size = serializers.IntegerField(
        min_value=1, max_value=200, default=50, help_text="Games per page (1-200)."
    )
    opponent = serializers.RegexField(
        f"^{PlayerIdConverter.regex}$",
        required=False,
        trim_whitespace=False,
        help_text="Only games against this player id.",
    )
    since = serializers.DateTimeField(
        required=False,
        help_text="Only games played at or after this ISO 8601 time (UTC if no offset given).",
    )


OPPONENTS_LIMIT = 50


class OpponentsQuery(serializers.Serializer):
    limit = serializers.IntegerField(
        min_value=1,
        max_value=OPPONENTS_LIMIT,
        default=10,
        help_text=f"How many opponents to suggest at most (1-{OPPONENTS_LIMIT}).",
    )


class HistoryPointSerializer(serializers.Serializer):
    at = serializers.DateTimeField(
        help_text="The game's time (per game; the first point is the rating before the first "
        "game), or 23:59 UTC of the day (daily)."
    )
    rating = RatingField(help_text="The rating after that game, or at the end of that day.")


class RatingHistorySerializer(serializers.Serializer):
    player = PlayerSummarySerializer(source="rating.player", help_text="Whose history.")
    character = CharacterSerializer(source="rating.character", help_text="Played as.")
    daily = serializers.BooleanField(help_text="Whether points are daily snapshots.")
    points = HistoryPointSerializer(many=True, help_text="Oldest first.")


class GameSerializer(serializers.Serializer):
    """One game seen from the rating's side."""

    id = serializers.IntegerField(source="match_id", help_text="The game's id on this site.")
    played_at = serializers.DateTimeField(help_text="When it was played (UTC).")
    floor = serializers.IntegerField(allow_null=True, help_text="The floor: 1-10, 99 = Celestial.")
    won = serializers.BooleanField(help_text="Whether this rating's player won.")
    counted = serializers.SerializerMethodField(
        help_text="Whether the game moved ratings (lopsided games between established players "
        "and games with cheaters do not); null until rated."
    )
    rating = RatingField(
        allow_null=True, help_text="This side's rating before the game; null until rated."
    )
    change = serializers.FloatField(
        allow_null=True, help_text="How much the game moved this side's rating; null until rated."
    )
    opponent = PlayerSummarySerializer(help_text="Who the opponent was.")
    opponent_character = CharacterSerializer(help_text="The opponent's character.")
    opponent_rating = RatingField(
        prefix="opponent_",
        allow_null=True,
        help_text="The opponent's rating before the game; null until rated.",
    )
    win_probability = serializers.FloatField(
        allow_null=True,
        help_text="P(this side wins) as shown before the game and stored with it: the expected "
        "score its rating update used, the matchup included (`change` follows from it); null "
        "until rated.",
    )
    model_win_probability = serializers.FloatField(
        allow_null=True,
        help_text="P(this side wins) from both ratings before the game alone (the reference "
        "formula: no matchup, no flattening); null until rated.",
    )

    def get_counted(self, game: RatedGame) -> bool | None:
        return None if game.change is None else game.counted


class GamePageSerializer(serializers.Serializer):
    next = serializers.URLField(
        allow_null=True, help_text="The next (older) page; null on the last page."
    )
    results = GameSerializer(many=True, help_text="Newest first.")


class OpponentPlayerSerializer(serializers.Serializer):
    id = serializers.CharField(source="player_id", help_text="The game's player id.")
    name = ShownNameField(help_text=SHOWN_NAME_HELP)


class FairOpponentSerializer(serializers.Serializer):
    """One suggested opponent."""

    # Reads a row of matches.selectors.opponents.fair_opponents, its character code
    # replaced by the Character.

    player = OpponentPlayerSerializer(source="*", help_text="Who.")
    character = CharacterSerializer(help_text="The character of their rating.")
    rating = RatingField(help_text="Their current rating.")
    tier = TierField()
    win_probability = serializers.FloatField(
        help_text="P(the requested rating beats this one) as the site shows it: the expected "
        "score a game between them would update with, the matchup included."
    )
    model_win_probability = serializers.FloatField(
        help_text="The same from the two ratings alone (the reference formula)."
    )
    quality = serializers.FloatField(
        help_text="Match quality, 1 - 2 |P - 0.5|: 1 for a coin flip, towards 0 for a "
        "one-sided game."
    )


class FairOpponentsSerializer(serializers.Serializer):
    player = PlayerSummarySerializer(source="target.player", help_text="Whose rating.")
    character = CharacterSerializer(source="target.character", help_text="Played as.")
    rating = RatingField(source="target", help_text="The rating the opponents are for.")
    tier = TierField(source="target")
    active_days = serializers.IntegerField(
        help_text="Opponents are ratings played within this many days (a site setting)."
    )
    opponents = FairOpponentSerializer(
        many=True,
        help_text="The fairest games first: P(win) nearest 0.5, ties to the lower deviation. "
        "Ratings of any character; never the player's own, nor hidden players' or cheaters'.",
    )


class PlayerMatchupSerializer(MatchupEstimateSerializer):
    opponent_character = CharacterSerializer(help_text="The opposing character.")

    def to_representation(self, row: PlayerMatchupRow) -> dict[str, Any]:
        return {
            "opponent_character": CharacterSerializer(row.opponent_character).data,
            **super().to_representation(row.estimate),
        }


class RatingMatchupsSerializer(serializers.Serializer):
    player = PlayerSummarySerializer(source="rating.player", help_text="Whose matchups.")
    character = CharacterSerializer(source="rating.character", help_text="Played as.")
    matchups = PlayerMatchupSerializer(
        source="matchups.rows",
        many=True,
        help_text="One row per opposing character met, by character id: the matchup offset "
        "from this rating's counted games, from a one-step estimate over their sums.",
    )
    overall = MatchupEstimateSerializer(
        source="matchups.overall", help_text="Every opposing character's games together."
    )


class PlacementSerializer(serializers.Serializer):
    """How far a rating is from the rankings (matches.selectors.profile.unranked)."""

    ranked = serializers.BooleanField(
        help_text="Ranked now: settled, confirmed by enough different settled opponents, "
        "its player not flagged."
    )
    flag = serializers.CharField(
        allow_null=True, help_text="`cheater` when its player's flag keeps it out; else null."
    )
    games_to_rank = serializers.IntegerField(
        help_text="Games against settled players of its level that would take its deviation "
        "below the ranking limit, one after another (the profile's 'ranked in about N more "
        "games'; 0 when ranked or flagged; at most 1000)."
    )
    idle_since = serializers.DateTimeField(
        allow_null=True,
        help_text="Its last game, when that game left it settled and only the idle time since "
        "has widened it (then one or a few games rank it again); else null.",
    )
    widest = serializers.BooleanField(
        help_text="Its ± is at its cap, which hides whether it is idle or has too few games."
    )
    opponents_to_rank = serializers.IntegerField(
        help_text="More different opponents, each settled when they play it, it must meet in "
        "counted games to be ranked (RANKED_MIN_OPPONENTS in all; repeated games against one "
        "opponent count once; 0 when it has met enough or is flagged)."
    )
