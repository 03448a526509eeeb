"""The `patch` query parameter the matchup and statistics endpoints share, and the patches
themselves (docs/rating-model.md#patches)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from matches.selectors.patches import ALL_TIME, UnknownPatch, choose_patch, patch_names
from web.errors import one_of


class PatchQuery(serializers.Serializer):
    patch = serializers.CharField(
        required=False,
        help_text="A patch's name, or `all` for every game; the current patch (the latest "
        f"live now) when absent, all time while there is none. `{ALL_TIME}` and the names "
        "are listed by /api/v1/patches/.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """`patch` becomes the PatchChoice it names (matches.selectors.patches)."""
        try:
            attrs["patch"] = choose_patch(attrs.get("patch"))
        except UnknownPatch:
            raise serializers.ValidationError({"patch": f"takes {one_of(patch_names())}"}) from None
        return attrs


class PatchSerializer(serializers.Serializer):
    name = serializers.CharField()
    versions = serializers.ListField(
        child=serializers.CharField(), help_text="The version strings its replays report."
    )
    live_at = serializers.DateTimeField(help_text="When it went live.")
