"""How the character matchup table looks in the API, and its query parameters
(matches.api.matchups)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from matches.api.serializers.patches import PatchQuery
from matches.models import CharacterMatchup
from matches.selectors.matchups import MatchupCell, MatchupEstimate
from players.api.serializers import CharacterSerializer


class MatchupsQuery(PatchQuery):
    bracket = serializers.ChoiceField(
        choices=CharacterMatchup.Bracket.values,
        default=CharacterMatchup.Bracket.ALL,
        help_text="Which games: `all`, those where both players are in the `top1000` or "
        "`top100` of their character, or `proportional`: those where each player ranks within "
        "1,000 times their character's share of play.",
    )


class MatchupEstimateSerializer(serializers.Serializer):
    """A matchup offset (docs/rating-model.md#matchups) with what it was estimated from."""

    offset = serializers.FloatField(
        allow_null=True,
        help_text="Rating points the matchup is worth: P(win) = 1 / (1 + 10^(-(r - r_opponent "
        "+ offset) / 400)); null without games.",
    )
    standard_error = serializers.FloatField(
        allow_null=True, help_text="Standard error of the offset, in rating points."
    )
    probability = serializers.FloatField(
        allow_null=True, help_text="P(win) at equal skill: 1 / (1 + 10^(-offset / 400))."
    )
    interval_low = serializers.FloatField(
        allow_null=True, help_text="Lower end of the 95% interval of `probability`."
    )
    interval_high = serializers.FloatField(
        allow_null=True, help_text="Upper end of the 95% interval of `probability`."
    )
    uncertain = serializers.BooleanField(
        help_text="The 95% interval is wider than the site's limit (shown greyed)."
    )
    games = serializers.IntegerField(help_text="Counted games.")
    wins = serializers.IntegerField(help_text="Counted games won.")
    losses = serializers.IntegerField(help_text="Counted games lost.")
    expected_wins = serializers.FloatField(
        help_text="Wins expected from the players' pre-game ratings alone."
    )

    def to_representation(self, estimate: MatchupEstimate) -> dict[str, Any]:
        offset = estimate.offset
        low, high = estimate.interval or (None, None)
        return {
            "offset": None if offset is None else offset.value,
            "standard_error": None if offset is None else offset.standard_error,
            "probability": estimate.probability,
            "interval_low": low,
            "interval_high": high,
            "uncertain": estimate.uncertain,
            "games": estimate.games,
            "wins": estimate.wins,
            "losses": estimate.losses,
            "expected_wins": estimate.expected_wins,
        }


class MatchupCellSerializer(MatchupEstimateSerializer):
    opponent = serializers.CharField(help_text="The column character's code.")
    mirror = serializers.BooleanField(
        help_text="The row character itself: 50% by definition, from no games."
    )

    change = serializers.FloatField(
        allow_null=True,
        help_text="How much `probability` moved since the previous patch's table "
        "(`previous_patch`); null for all time, the first patch or a pair without games in "
        "either.",
    )
    change_low = serializers.FloatField(
        allow_null=True, help_text="Lower end of the 95% interval of `change`."
    )
    change_high = serializers.FloatField(
        allow_null=True, help_text="Upper end of the 95% interval of `change`."
    )

    def to_representation(self, cell: MatchupCell) -> dict[str, Any]:
        change = cell.change
        return {
            "opponent": cell.opponent.code,
            "mirror": cell.mirror,
            **super().to_representation(cell.estimate),
            "change": None if change is None else change.change,
            "change_low": None if change is None else change.low,
            "change_high": None if change is None else change.high,
        }


class MatchupRowSerializer(serializers.Serializer):
    character = CharacterSerializer(help_text="The row character.")
    average = serializers.FloatField(
        allow_null=True,
        help_text="The mean of its `probability` over the opponents with games, mirror excluded.",
    )
    cells = MatchupCellSerializer(many=True, help_text="One per column, in `characters` order.")


class MatchupMatrixSerializer(serializers.Serializer):
    bracket = serializers.CharField(help_text="`all`, `top1000`, `top100` or `proportional`.")
    patch = serializers.CharField(help_text="The patch's name, or `all` (every game).")
    previous_patch = serializers.CharField(
        allow_null=True, help_text="The patch each cell's `change` is measured from."
    )
    characters = CharacterSerializer(
        source="columns", many=True, help_text="Rows and columns, strongest first."
    )
    rows = MatchupRowSerializer(many=True, help_text="One per character, strongest first.")
