from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Case, IntegerField, Value, When
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from matches.models import (
    CharacterMatchup,
    IngestRun,
    IntegrityFlag,
    Match,
    Patch,
    PlayerFlagChange,
    RejectedReplay,
    ReplaySource,
    Season,
    SiteStatistic,
)
from matches.operations import operations_overview
from matches.services.flags import set_player_flags
from matches.services.integrity_review import review_flag
from matches.services.patches import changing_patches
from matches.services.roster import save_character
from matches.sources.pulling import KINDS, validate_settings
from players.admin import ReadOnlyAdmin
from players.models import Character, Player, PlayerName
from players.services import new_character_defaults
from web.generation import bump_generation
from web.paginators import EstimatedCountPaginator

FLAGS = ("hidden", "cheater", "supporter")


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


class PatchForm(forms.ModelForm):
    class Meta:
        model = Patch
        fields = ("name", "versions", "live_at")

    def clean_versions(self) -> list[str]:
        """Trimmed, each listed once, and by no other patch: a version names one patch."""
        versions = list(dict.fromkeys(v.strip() for v in self.cleaned_data["versions"]))
        taken = (
            Patch.objects.filter(versions__overlap=versions)
            .exclude(pk=self.instance.pk)
            .values_list("name", flat=True)
        )
        if taken:
            raise forms.ValidationError(f"Already listed by {', '.join(sorted(taken))}.")
        return versions


@admin.register(Patch)
class PatchAdmin(admin.ModelAdmin):
    """Patches: a change places again the games it can move, and rebuilds what groups by
    their patch, in a task queued at commit (matches.services.patches)."""

    form = PatchForm
    list_display = ("name", "live_at", "versions")
    search_fields = ("name",)

    def save_model(self, request: HttpRequest, obj: Patch, form: forms.ModelForm, change: bool):
        with changing_patches():
            super().save_model(request, obj, form, change)

    def delete_model(self, request: HttpRequest, obj: Patch) -> None:
        with changing_patches():
            super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset) -> None:
        with changing_patches():
            super().delete_queryset(request, queryset)


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    """The roster (docs/roster.md): a character saved here is seen by every page, the API
    and replay validation at their next request, and the replays waiting for it are
    stored and rated. Characters are never deleted (games name them): retire one."""

    list_display = ("code", "name", "display_order", "release_date", "retired", "id")
    list_editable = ("display_order", "retired")
    search_fields = ("code", "name")
    fields = ("code", "name", "display_order", "release_date", "retired", "id")

    def get_changeform_initial_data(self, request: HttpRequest) -> dict:
        """A new character comes after every other; `?code=XX` (the operations page's
        link for replays waiting for XX) fills its code."""
        initial = super().get_changeform_initial_data(request)
        return {"display_order": new_character_defaults()["display_order"], **initial}

    def get_fields(self, request: HttpRequest, obj: Character | None = None) -> tuple:
        return self.fields if obj is not None else self.fields[:-1]  # no id before saving

    def get_readonly_fields(self, request: HttpRequest, obj: Character | None = None) -> tuple:
        # A code is how replays name the character: changing it would strand replays
        # sent with the old one. Its name can change; its games follow its id.
        return ("code", "id") if obj is not None else ()

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def save_model(
        self, request: HttpRequest, obj: Character, form: forms.ModelForm, change: bool
    ) -> None:
        if not change:
            obj.id = new_character_defaults()["id"]
        save_character(obj)


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
        "patch",
        "character",
        "opponent",
        "wins",
        "losses",
        "expected_wins",
        "offset",
        "standard_error",
    )
    list_filter = ("bracket", "patch", "character")
    list_select_related = ("patch", "character", "opponent")


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


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    """Seasons (README.md#seasons): the refresh draws their ladders and archives them when
    they end; an archived season's days no longer change (its standings would not follow)."""

    list_display = ("name", "start", "end", "archived_at")
    readonly_fields = ("archived_at",)

    def get_readonly_fields(self, request: HttpRequest, obj: Season | None = None) -> tuple:
        if obj is not None and obj.archived_at is not None:
            return ("name", "start", "end", "archived_at")
        return self.readonly_fields

    def save_model(self, request: HttpRequest, obj: Season, form: forms.Form, change: bool) -> None:
        if {"start", "end"} & set(form.changed_data):
            obj.counted_through = None  # its games are counted afresh at the next refresh
        super().save_model(request, obj, form, change)
        transaction.on_commit(bump_generation)

    def delete_model(self, request: HttpRequest, obj: Season) -> None:
        super().delete_model(request, obj)
        transaction.on_commit(bump_generation)


@admin.register(SiteStatistic)
class SiteStatisticAdmin(admin.ModelAdmin):
    list_display = ("key", "computed_at")


class PlayerNameInline(admin.TabularInline):
    model = PlayerName
    extra = 0
    readonly_fields = ("name", "first_seen", "last_seen")
    can_delete = False


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """Players, here rather than in players/admin.py because their flags are set through
    matches.services.flags (recorded, the recompute queued, not run in the request)."""

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
    list_editable = FLAGS
    list_filter = ("hidden", "cheater", "supporter", "private", "platform")
    search_fields = ("id", "name", "names__name")
    # Private is the owner's choice, changed (and logged) under Ownerships.
    readonly_fields = ("id", "first_seen", "last_seen", "private")
    inlines = [PlayerNameInline]
    show_full_result_count = False

    def save_model(
        self, request: HttpRequest, obj: Player, form: forms.ModelForm, change: bool
    ) -> None:
        """The change form and the list's editable flags: flags through the service, any
        other field saved as it is."""
        flags = {flag: getattr(obj, flag) for flag in FLAGS if flag in form.changed_data}
        for flag in flags:
            setattr(obj, flag, form.initial[flag])  # as stored: the service changes them
        others = [name for name in form.changed_data if name not in FLAGS]
        if not change:
            super().save_model(request, obj, form, change)
        elif others:
            obj.save(update_fields=others)
        if not change or others:
            transaction.on_commit(bump_generation)
        if flags:
            set_player_flags(obj, **flags, by=request.user.get_username())


@admin.register(PlayerFlagChange)
class PlayerFlagChangeAdmin(ReadOnlyAdmin):
    """The record of flag changes: read only."""

    list_display = ("at", "player", "flag", "value", "by", "recompute")
    list_filter = ("flag", "recompute")
    list_select_related = ("player",)
    search_fields = ("player__id", "player__name", "by")


# The evidence table on a flag's page shows this many of its games (all are linked).
EVIDENCE_GAMES_SHOWN = 50
# The review buttons of a flag's page (templates/admin/matches/integrityflag/) by label.
REVIEW_BUTTONS = {
    "Dismiss": IntegrityFlag.Status.DISMISSED,
    "Mark cheater": IntegrityFlag.Status.CHEATER,
    "Link": IntegrityFlag.Status.LINKED,
}


@admin.register(IntegrityFlag)
class IntegrityFlagAdmin(admin.ModelAdmin):
    """The integrity review queue (README.md#the-integrity-review-queue): open flags first,
    each with its evidence and the operator's three decisions (dismiss, mark cheater,
    link to another player as the same person), taken through
    matches.services.integrity_review.review_flag. Staff only, as the whole admin is; nothing
    here is shown to the public until an operator marks a cheater."""

    list_display = (
        "player_name",
        "suspected",
        "status",
        "games",
        "wins",
        "expected",
        "chance",
        "updated",
    )
    list_filter = ("status", "kind")
    list_select_related = ("player",)
    search_fields = ("player__id", "player__name")
    show_full_result_count = False
    change_form_template = "admin/matches/integrityflag/change_form.html"
    fields = (
        "player_links",
        "kind",
        "character",
        "status",
        "evidence",
        "first_flagged_at",
        "updated_at",
        "reviewed_by",
        "reviewed_at",
        "linked_to",
    )
    readonly_fields = fields

    def get_ordering(self, request: HttpRequest) -> list:
        """Open flags first, then the freshest evidence."""
        reviewed = Case(
            When(status=IntegrityFlag.Status.OPEN, then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        )
        return [reviewed.asc(), "-updated_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # flags come from the detectors

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False  # a reviewed flag is the record that keeps the player from being reflagged

    @admin.display(description="suspected", ordering="kind")
    def suspected(self, flag: IntegrityFlag) -> str:
        return flag.get_kind_display().removeprefix("suspected ")

    @admin.display(description="expected", ordering="expected_wins")
    def expected(self, flag: IntegrityFlag) -> str:
        return f"{flag.expected_wins:.1f}"

    @admin.display(description="probability", ordering="probability")
    def chance(self, flag: IntegrityFlag) -> str:
        return f"{flag.probability:.2g}"

    @admin.display(description="updated", ordering="updated_at")
    def updated(self, flag: IntegrityFlag) -> str:
        return f"{flag.updated_at:%Y-%m-%d}"

    @admin.display(description="player", ordering="player__name")
    def player_name(self, flag: IntegrityFlag) -> str:
        return flag.player.name

    @admin.display(description="player")
    def player_links(self, flag: IntegrityFlag) -> str:
        return format_html(
            '{} · <a href="{}">profile</a> · <a href="{}">their games</a> · <a href="{}">flags</a>',
            flag.player,
            reverse("player", args=[flag.player_id]),
            reverse("admin:matches_match_changelist") + f"?q={flag.player_id}",
            reverse("admin:players_player_change", args=[flag.player_id]),
        )

    @admin.display(description="evidence")
    def evidence(self, flag: IntegrityFlag) -> str:
        partners = format_html_join(
            ", ",
            '<a href="{}">{}</a> (<a href="{}">games together</a>)',
            (
                (
                    reverse("player", args=[partner.pk]),
                    partner,
                    reverse("admin:matches_match_changelist") + f"?q={flag.player_id}+{partner.pk}",
                )
                for partner in Player.objects.filter(pk__in=flag.partners).order_by("name")
            ),
        )
        games = (
            Match.objects.filter(pk__in=flag.match_ids[:EVIDENCE_GAMES_SHOWN])
            .select_related("player_a", "player_b", "character_a", "character_b")
            .order_by("played_at", "pk")
        )
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{} ({})</td><td>{} ({})</td><td>{}</td></tr>",
            (
                (
                    f"{game.played_at:%Y-%m-%d %H:%M}",
                    game.player_a,
                    game.character_a.code,
                    game.player_b,
                    game.character_b.code,
                    game.player_a if game.winner == Match.Winner.A else game.player_b,
                )
                for game in games
            ),
        )
        all_games = (
            reverse("admin:matches_match_changelist")
            + "?id__in="
            + ",".join(str(match_id) for match_id in flag.match_ids)
        )
        return format_html(
            '<dl class="integrity-evidence">'
            "<dt>Games read</dt><dd>{}</dd><dt>Wins</dt><dd>{}</dd>"
            "<dt>Expected wins</dt><dd>{}</dd>"
            "<dt>Probability of a record this good</dt><dd>{}</dd>"
            "<dt>Partners</dt><dd>{}</dd></dl>"
            '<p><a href="{}">All {} games of the evidence</a> (the first {} below)</p>'
            "<table><thead><tr><th>played</th><th>side A</th><th>side B</th><th>winner</th>"
            "</tr></thead><tbody>{}</tbody></table>",
            flag.games,
            flag.wins,
            self.expected(flag),
            self.chance(flag),
            partners or "none",
            all_games,
            len(flag.match_ids),
            min(len(flag.match_ids), EVIDENCE_GAMES_SHOWN),
            rows,
        )

    def get_urls(self) -> list[URLPattern]:
        review = path(
            "<int:flag_id>/review/",
            self.admin_site.admin_view(self.review_view),
            name="matches_integrityflag_review",
        )
        return [review, *super().get_urls()]

    def review_view(self, request: HttpRequest, flag_id: int) -> HttpResponse:
        """The change page's decision buttons: dismiss, mark cheater, or link."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        flag = get_object_or_404(IntegrityFlag.objects.select_related("player"), pk=flag_id)
        here = reverse("admin:matches_integrityflag_change", args=[flag.pk])
        if not self.has_change_permission(request, flag):
            messages.error(request, "You may not review integrity flags.")
            return HttpResponseRedirect(here)
        decision = REVIEW_BUTTONS.get(request.POST.get("decision", ""))
        if decision is None:
            messages.error(request, "Choose dismiss, mark cheater or link.")
            return HttpResponseRedirect(here)
        linked_to = None
        if decision == IntegrityFlag.Status.LINKED:
            linked_to = Player.objects.filter(pk=request.POST.get("linked_to", "").strip()).first()
            if linked_to is None or linked_to.pk == flag.player_id:
                messages.error(request, "Link to another player: give their id.")
                return HttpResponseRedirect(here)
        review_flag(
            flag,
            decision,
            by=request.user.get_username(),
            linked_to=linked_to,
        )
        messages.success(request, f"{flag.player}: {flag.get_status_display()}.")
        return HttpResponseRedirect(reverse("admin:matches_integrityflag_changelist"))
