"""The `patch` query parameter the matchup and statistics endpoints share, and the patches
themselves (docs/rating-model.md#patches)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import NotFound

from matches.selectors.patches import ALL_TIME, UnknownPatch, choose_patch, patch_names
from web.errors import one_of


class PatchQuery(serializers.Serializer):
    # Absent `patch`: the current patch, or (False) all time.
    defaults_to_current = True

    # Names as given (an operator's own, trimmed by none): an unknown one is a 404.
    patch = serializers.CharField(
        required=False,
        trim_whitespace=False,
        help_text=f"A patch's name, or `{ALL_TIME}` for every game; the current patch (the latest "
        "live now) when absent, all time while there is none.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """`patch` becomes the PatchChoice it names (matches.selectors.patches)."""
        name = attrs.get("patch", None if self.defaults_to_current else ALL_TIME)
        try:
            attrs["patch"] = choose_patch(name)
        except UnknownPatch:
            # A 404, as for a character the roster lacks: patches are data, so the schema
            # cannot list them, and a well-formed name is a resource that may not exist.
            raise NotFound(f"No patch of that name; patch takes {one_of(patch_names())}.") from None
        return attrs


class RatingPatchQuery(PatchQuery):
    """A rating's matchups: all time unless a patch is asked for."""

    defaults_to_current = False

    patch = serializers.CharField(
        required=False,
        trim_whitespace=False,
        help_text="A patch's name: the rating's counted games of that patch only; all time "
        "(`all`) when absent.",
    )
