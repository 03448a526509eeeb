"""The patch picker the matchup and statistics pages share (docs/rating-model.md#patches)."""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import quote

from django.http import HttpRequest

from matches.selectors.patches import (
    PatchChoice,
    UnknownPatch,
    choose_patch,
    patch_names,
)
from web.errors import InvalidQuery, one_of


class PatchText(NamedTuple):
    """One choice of the patch picker."""

    key: str
    label: str
    current: bool


def chosen_patch(request: HttpRequest, default: str | None = None) -> PatchChoice:
    """The patch `?patch=` names (none: `default`, itself None for the current one), or a
    400 saying which exist."""
    try:
        return choose_patch(request.GET.get("patch", default))
    except UnknownPatch:
        raise InvalidQuery("patch", one_of(patch_names())) from None


def patch_texts(choice: PatchChoice) -> list[PatchText]:
    """The picker's choices: every patch newest first, then all time; none without patches."""
    if not choice.patches:
        return []
    return [
        *(PatchText(p.name, f"Patch {p.name}", p == choice.patch) for p in choice.patches),
        PatchText("all", "All time", choice.patch is None),
    ]


def patch_query(choice: PatchChoice) -> str:
    """What links add to keep the patch, once there are patches to choose from."""
    return f"&patch={quote(choice.key)}" if choice.patches else ""
