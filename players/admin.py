from django.contrib import admin

from players.models import Character, Player, PlayerName, Rating


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ("id", "code", "name")
    search_fields = ("code", "name")


class PlayerNameInline(admin.TabularInline):
    model = PlayerName
    extra = 0
    readonly_fields = ("name", "first_seen", "last_seen")
    can_delete = False


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "name",
        "platform",
        "floor",
        "last_seen",
        "hidden",
        "cheater",
        "supporter",
    )
    list_editable = ("hidden", "cheater", "supporter")
    list_filter = ("hidden", "cheater", "supporter", "platform")
    search_fields = ("id", "name", "names__name")
    readonly_fields = ("id", "first_seen", "last_seen")
    inlines = [PlayerNameInline]
    show_full_result_count = False


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
