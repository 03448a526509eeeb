from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from matches.models import (
    CharacterMatchup,
    IngestRun,
    Match,
    RejectedReplay,
    ReplaySource,
    SiteStatistic,
)
from matches.operations import operations_overview
from matches.sources.pulling import KINDS, validate_settings
from web.paginators import EstimatedCountPaginator


class ReplaySourceForm(forms.ModelForm):
    class Meta:
        model = ReplaySource
        fields = ("name", "kind", "settings", "cursor", "enabled")

    def clean(self) -> dict:
        cleaned = super().clean()
        kind, settings = cleaned.get("kind"), cleaned.get("settings")
        if kind in KINDS and isinstance(settings, dict):
            try:
                cleaned["settings"] = validate_settings(kind, settings)
            except ValueError as error:
                self.add_error("settings", str(error))
        return cleaned


@admin.register(ReplaySource)
class ReplaySourceAdmin(admin.ModelAdmin):
    form = ReplaySourceForm
    list_display = ("name", "kind", "enabled", "cursor", "created_at")
    list_editable = ("enabled",)
    list_filter = ("kind", "enabled")
    search_fields = ("name",)
    change_list_template = "admin/matches/replaysource/change_list.html"

    def get_urls(self) -> list[URLPattern]:
        operations = path(
            "operations/",
            self.admin_site.admin_view(self.operations_view),
            name="matches_operations",
        )
        return [operations, *super().get_urls()]

    def operations_view(self, request: HttpRequest) -> TemplateResponse:
        """Sources with their latest runs, pending matches and the latest rejected replays."""
        context = {
            **self.admin_site.each_context(request),
            "title": "Operations",
            "opts": self.model._meta,
            "operations": operations_overview(),
        }
        return TemplateResponse(request, "admin/matches/operations.html", context)


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
        "rating__counted",
        "rating__rated_at",
    )
    list_filter = ("rating__counted", ("reported_at", admin.EmptyFieldListFilter), "source")
    list_select_related = ("rating", "player_a", "player_b", "character_a", "character_b")
    search_fields = ("source_replay_id", "player_a__id", "player_b__id")
    raw_id_fields = ("player_a", "player_b")
    # Opens fast on millions of matches: no whole-table count (the paginator estimates),
    # no date hierarchy (its first/last dates scan the table), newest first by key.
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    ordering = ("-id",)


@admin.register(CharacterMatchup)
class CharacterMatchupAdmin(admin.ModelAdmin):
    list_display = (
        "bracket",
        "character",
        "opponent",
        "wins",
        "losses",
        "expected_wins",
        "offset",
        "standard_error",
    )
    list_filter = ("bracket", "character")
    list_select_related = ("character", "opponent")


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
    list_select_related = ("source",)
    list_filter = ("source",)


@admin.register(RejectedReplay)
class RejectedReplayAdmin(admin.ModelAdmin):
    list_display = ("created_at", "source", "reason")
    list_filter = ("source",)
    list_select_related = ("source",)
    search_fields = ("reason", "raw")
    readonly_fields = ("source", "run", "raw", "fingerprint", "reason", "created_at")
    show_full_result_count = False


@admin.register(SiteStatistic)
class SiteStatisticAdmin(admin.ModelAdmin):
    list_display = ("key", "computed_at")
