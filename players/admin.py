"""Operators' pages for players' data. The Player and Character admins are in
matches/admin.py: a flag goes through matches.services.flags and a character's save
through matches.services.roster, which players may not import."""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from players.models import Claim, Ownership, OwnershipEvent, PlayerName, Rating
from players.services import ownership as ownership_service
from web.limits import client_address


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


class ReadOnlyAdmin(admin.ModelAdmin):
    """A record operators read and never edit."""

    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Ownership)
class OwnershipAdmin(ReadOnlyAdmin):
    """Claimed profiles. Revoking signs the owner out, stops the key and makes the
    profile public; every action is logged under Ownership events with the operator."""

    list_display = (
        "player", "claimed_at", "key_version", "replaced_at", "revoked_at", "player_private"
    )  # fmt: skip
    list_filter = ("player__private",)
    list_select_related = ("player",)
    search_fields = ("player__id", "player__name")
    exclude = ("key_hash",)
    actions = ("revoke", "make_public", "make_private")

    @admin.display(boolean=True, description="private")
    def player_private(self, ownership: Ownership) -> bool:
        return ownership.player.private

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        # Viewing only; the actions need the right to change.
        return obj is None and request.user.has_perm("players.change_ownership")

    @admin.action(
        description="Revoke ownership (the key stops working; public again)",
        permissions=["change"],
    )
    def revoke(self, request: HttpRequest, queryset: QuerySet[Ownership]) -> None:
        for ownership in queryset:
            ownership_service.revoke(
                ownership, by=request.user.get_username(), client_address=client_address(request)
            )
        messages.success(request, f"Revoked {queryset.count()} ownership(s).")

    @admin.action(description="Make public", permissions=["change"])
    def make_public(self, request: HttpRequest, queryset: QuerySet[Ownership]) -> None:
        self._set_private(request, queryset, False)

    @admin.action(description="Make private", permissions=["change"])
    def make_private(self, request: HttpRequest, queryset: QuerySet[Ownership]) -> None:
        self._set_private(request, queryset, True)

    def _set_private(
        self, request: HttpRequest, queryset: QuerySet[Ownership], private: bool
    ) -> None:
        for ownership in queryset:
            ownership_service.set_private(
                ownership,
                private,
                by=request.user.get_username(),
                client_address=client_address(request),
            )


@admin.register(OwnershipEvent)
class OwnershipEventAdmin(ReadOnlyAdmin):
    """The log of ownership changes: claims, keys, private and public, links, revocations."""

    list_display = ("at", "player", "kind", "by", "client_address", "detail")
    list_filter = ("kind",)
    list_select_related = ("player",)
    search_fields = ("player__id", "client_address", "by")


@admin.register(Claim)
class ClaimAdmin(ReadOnlyAdmin):
    list_display = (
        "player", "code", "started_at", "expires_at", "completed_at", "closed_at", "client_address"
    )  # fmt: skip
    list_select_related = ("player",)
    search_fields = ("player__id", "code", "client_address")
    exclude = ("token_hash",)
