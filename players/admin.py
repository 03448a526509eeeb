"""Operators' pages for players' data. The Player admin itself is in matches/admin.py:
its flags go through matches.services.flags, which players may not import."""

from django.contrib import admin

from players.models import Character, PlayerName, Rating


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ("id", "code", "name")
    search_fields = ("code", "name")


@admin.register(PlayerName)
class PlayerNameAdmin(admin.ModelAdmin):
    list_display = ("name", "player", "first_seen", "last_seen")
    search_fields = ("name", "player__id")
    list_select_related = ("player",)
    raw_id_fields = ("player",)
    show_full_result_count = False


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = (
        "player",
        "character",
        "value",
        "deviation",
        "wins",
        "losses",
    )
    list_filter = ("character",)
    list_select_related = ("player", "character")
    search_fields = ("player__id", "player__name")
    raw_id_fields = ("player", "best_win_opponent")
    show_full_result_count = False
