"""How a win probability forecast looks in the API, and its query parameters
(matches.api.calculator)."""

from __future__ import annotations

import re
from typing import Any

from rest_framework import serializers

from players.api.converters import CharacterConverter, PlayerIdConverter
from players.api.fields import RatingField
from players.api.serializers import CharacterSerializer, PlayerSummarySerializer


class ContenderField(serializers.RegexField):
    """`VALUE,DEVIATION` (value 0-9999, deviation 1-999) or `PLAYER_ID:CHARACTER`; validated
    to ("numbers", value, deviation) or ("rating", player id, character key)."""

    # As many decimals as the shortest text of a float has: the calculator page's script
    # sends the numbers typed in, and half the ±, as JavaScript writes them.
    DECIMALS = r"(?:\.[0-9]{1,17})?"
    PATTERN = re.compile(
        rf"^(?:(?P<value>[0-9]{{1,4}}{DECIMALS}),(?P<deviation>[1-9][0-9]{{0,2}}{DECIMALS})"
        f"|(?P<player>{PlayerIdConverter.regex}):(?P<character>{CharacterConverter.regex}))$"
    )
    default_error_messages = {
        "invalid": "Expected `value,deviation` (e.g. `1700,80`) or `player_id:character` "
        "(e.g. `230129212655563979:SO`)."
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(self.PATTERN.pattern, trim_whitespace=False, **kwargs)

    def run_validation(self, data: Any = serializers.empty) -> tuple[str, Any, Any]:
        parts = self.PATTERN.match(super().run_validation(data))
        if parts["player"] is not None:
            return ("rating", parts["player"], parts["character"])
        return ("numbers", float(parts["value"]), float(parts["deviation"]))


class ProbabilityQuery(serializers.Serializer):
    a = ContenderField(
        help_text="Side A: `value,deviation` (`1700,80`) or a player's rating "
        "`player_id:character` (`230129212655563979:SO`).",
    )
    b = ContenderField(help_text="Side B, in the same forms as `a`.")


class OutcomeSerializer(serializers.Serializer):
    rating = RatingField(help_text="The rating after the game.")
    change = serializers.FloatField(help_text="The change of the value.")
    change_display = serializers.CharField(
        source="change_text",
        help_text="The change as the site shows it: signed, one decimal (`+8.3`, `0.0`; a "
        "decrease with a true minus sign, U+2212).",
    )


class ForecastSideSerializer(serializers.Serializer):
    player = PlayerSummarySerializer(
        source="contender.rating.player",
        allow_null=True,
        help_text="The player, when given as `player_id:character`.",
    )
    character = CharacterSerializer(
        source="contender.rating.character",
        allow_null=True,
        help_text="Their character, when given as `player_id:character`.",
    )
    rating = RatingField(source="contender", help_text="The rating going into the game.")
    win_probability = serializers.FloatField(
        help_text="P(this side wins), as the site shows it: the expected score the rating "
        "update uses, the matchup of the two characters included (docs: one chance)."
    )
    win_probability_display = serializers.CharField(
        source="win_probability_text",
        help_text="`win_probability` as the site shows it: a percentage, one decimal (`72.1%`).",
    )
    model_win_probability = serializers.FloatField(
        help_text="P(this side wins) from the two ratings alone (the reference formula), "
        "without the matchup or the flattening."
    )
    matchup_offset = serializers.FloatField(
        source="chance.offset",
        help_text="What this side's character is worth against the other's, in rating points "
        "(0 for typed-in ratings, a mirror, or a pair without an estimate).",
    )
    after_win = OutcomeSerializer(help_text="This side's rating if it wins.")
    after_loss = OutcomeSerializer(help_text="This side's rating if it loses.")
    spared = serializers.BooleanField(
        help_text="Whether this side's rating stays as it is whoever wins: the other side's "
        "rating is new and keeps beating its chances by far, and such a rating leaves its "
        "opponents' ratings as they are until it reaches its level."
    )


class ForecastSerializer(serializers.Serializer):
    a = ForecastSideSerializer(help_text="Side A.")
    b = ForecastSideSerializer(help_text="Side B.")
    chance_parts_display = serializers.CharField(
        source="parts_text",
        help_text="How side A's chance is made when a matchup enters it, as the page says it "
        "(empty otherwise).",
    )
    spared_display = serializers.CharField(
        source="spared_text",
        help_text="Why a side's rating would not move whoever wins, as the page says it "
        "(empty when no side is spared).",
    )
    calibrated_display = serializers.CharField(
        source="calibrated_text",
        help_text="How often the site's latest chances like side A's came true, as the page "
        "says it (empty before the first calibration fit).",
    )
    counts = serializers.BooleanField(
        help_text="Whether the game would move ratings at all: not when a side is a cheater, "
        "nor for a lopsided game between established players (then neither result counts)."
    )
