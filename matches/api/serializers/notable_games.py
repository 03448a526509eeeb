"""How the notable games look in the API (matches.api.notable_games)."""

from __future__ import annotations

from rest_framework import serializers


class NotableSideSerializer(serializers.Serializer):
    player_id = serializers.CharField(help_text="The player's id.")
    name = serializers.CharField(help_text="The player's current name, as shown.")
    platform = serializers.CharField(help_text="The player's platform.")
    character = serializers.CharField(help_text="The character's code.")
    character_name = serializers.CharField(help_text="The character's name.")
    value = serializers.FloatField(
        help_text="The rating before the game (in a set: the mean over its games)."
    )


class SetSideSerializer(NotableSideSerializer):
    wins = serializers.IntegerField(help_text="Games this side won in the set.")


class UpsetSerializer(serializers.Serializer):
    match_id = serializers.IntegerField(help_text="The game's id.")
    played_at = serializers.DateTimeField(help_text="When it was played.")
    chance = serializers.FloatField(
        help_text="The winner's chance the site showed before the game (0-1)."
    )
    winner = NotableSideSerializer(help_text="The side that won.")
    loser = NotableSideSerializer(help_text="The side that lost.")


class NotableSetSerializer(serializers.Serializer):
    last_played_at = serializers.DateTimeField(help_text="When its last game was played.")
    games = serializers.IntegerField(help_text="Games between the two ratings in the window.")
    mean_value = serializers.FloatField(
        help_text="The mean of both sides' pre-game ratings over the set."
    )
    a = SetSideSerializer(help_text="One side (the player with the smaller id).")
    b = SetSideSerializer(help_text="The other side.")


class NewcomerSerializer(serializers.Serializer):
    player_id = serializers.CharField(help_text="The player's id.")
    name = serializers.CharField(help_text="The player's current name, as shown.")
    platform = serializers.CharField(help_text="The player's platform.")
    first_seen = serializers.DateTimeField(help_text="When the player was first seen.")
    character = serializers.CharField(help_text="The character of their best ranked rating.")
    character_name = serializers.CharField(help_text="That character's name.")
    value = serializers.FloatField(help_text="That rating's value.")
    deviation = serializers.FloatField(help_text="That rating's deviation.")
    games = serializers.IntegerField(help_text="That rating's games.")


class NotableGamesSerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField(help_text="When the refresh computed them.")
    since = serializers.DateTimeField(help_text="The window's start (24 hours before `until`).")
    until = serializers.DateTimeField(help_text="The window's end: the refresh's moment.")
    upsets = UpsetSerializer(
        many=True,
        help_text="The window's games between settled ratings (players not flagged) whose "
        "winner had the lowest chance shown, lowest first (at most 10).",
    )
    sets = NotableSetSerializer(
        many=True,
        help_text="The pairs of settled ratings that met two or more times in the window, "
        "by the mean of both sides' ratings, highest first (at most 10).",
    )
    newcomers = NewcomerSerializer(
        many=True,
        help_text="The players first seen most recently among those with a ranked rating, "
        "each with their best, newest first (at most 10).",
    )
