"""Shapes of an owner's own data in the API (matches.api.owner_data)."""

from __future__ import annotations

from rest_framework import serializers


class OwnerGameSerializer(serializers.Serializer):
    player_id = serializers.CharField(help_text="Which of your accounts played.")
    character = serializers.CharField(help_text="Your character's code.")
    played_at = serializers.DateTimeField(help_text="When (UTC).")
    result = serializers.ChoiceField(choices=["win", "loss"], help_text="Yours.")
    opponent_id = serializers.CharField(help_text="Empty for a private opponent.")
    opponent = serializers.CharField(help_text='Their current name, or "a private player".')
    opponent_character = serializers.CharField(help_text="Their character's code.")
    rating_before = serializers.FloatField(allow_null=True, help_text="Null until rated.")
    deviation_before = serializers.FloatField(allow_null=True, help_text="Its deviation then.")
    change = serializers.FloatField(allow_null=True, help_text="What the game did to it.")
    opponent_rating_before = serializers.FloatField(
        allow_null=True, help_text="Their rating before the game."
    )
    counted = serializers.BooleanField(help_text="Whether the game moved the ratings.")


class OwnerRatingDaySerializer(serializers.Serializer):
    player_id = serializers.CharField(help_text="Which of your accounts.")
    character = serializers.CharField(help_text="The character's code.")
    day = serializers.DateField(help_text="A day the rating was played (UTC).")
    value = serializers.FloatField(help_text="The rating at the end of that day.")
    deviation = serializers.FloatField(help_text="Its deviation then.")
