"""Operators' pages for players' data. The Player and Character admins are in
matches/admin.py: a flag goes through matches.services.flags and a character's save
through matches.services.roster, which players may not import."""

from django.contrib import admin

from players.models import PlayerName, Rating


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
