from django.contrib import admin

from matches.models import (
    CharacterMatchup,
    IngestRun,
    Match,
    RejectedReplay,
    ReplaySource,
    SiteStatistic,
)


@admin.register(ReplaySource)
class ReplaySourceAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "enabled", "cursor", "created_at")
    list_editable = ("enabled",)
    list_filter = ("kind", "enabled")
    search_fields = ("name",)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "played_at",
        "player_a",
        "character_a",
        "player_b",
        "character_b",
        "winner",
        "counted",
        "rated_at",
    )
    list_filter = ("counted", "time_corrected", "source")
    search_fields = ("source_replay_id", "player_a__id", "player_b__id")
    raw_id_fields = ("player_a", "player_b")
    date_hierarchy = "played_at"
    show_full_result_count = False


@admin.register(CharacterMatchup)
class CharacterMatchupAdmin(admin.ModelAdmin):
    list_display = ("bracket", "character", "opponent", "wins", "losses", "value", "deviation")
    list_filter = ("bracket", "character")


@admin.register(IngestRun)
class IngestRunAdmin(admin.ModelAdmin):
    list_display = (
        "source",
        "started_at",
        "finished_at",
        "fetched",
        "new",
        "duplicate",
        "rejected",
        "error",
    )
    list_filter = ("source",)


@admin.register(RejectedReplay)
class RejectedReplayAdmin(admin.ModelAdmin):
    list_display = ("created_at", "source", "reason")
    list_filter = ("source",)
    search_fields = ("reason", "raw")
    readonly_fields = ("source", "run", "raw", "fingerprint", "reason", "created_at")
    show_full_result_count = False


@admin.register(SiteStatistic)
class SiteStatisticAdmin(admin.ModelAdmin):
    list_display = ("key", "computed_at")
