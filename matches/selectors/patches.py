"""The game's patches (docs/rating-model.md#patches) as the pages and the API choose among
them: newest first, the current one the default, `all` for every game."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from matches.models import Patch

ALL_TIME = "all"


class UnknownPatch(LookupError):
    """A patch name that no patch has (nor `all`)."""


@dataclass(frozen=True)
class PatchChoice:
    """What a page or endpoint reads: `patch` (None: all time), the one before it (whose
    table a cell's change is measured from), and every patch to pick from."""

    patch: Patch | None
    previous: Patch | None
    patches: list[Patch]  # newest first

    @property
    def key(self) -> str:
        """The query value that names the choice."""
        return ALL_TIME if self.patch is None else self.patch.name

    @property
    def label(self) -> str:
        return "All time" if self.patch is None else f"Patch {self.patch.name}"


def patch_names() -> list[str]:
    """The values a `patch` parameter takes, newest patch first, `all` last."""
    return [*Patch.objects.values_list("name", flat=True), ALL_TIME]


def choose_patch(name: str | None) -> PatchChoice:
    """The patch a query names; without a name, the current patch (the latest live now;
    all time while there is none). Raises UnknownPatch for a name no patch has."""
    patches = list(Patch.objects.all())  # a few rows, newest first
    if name is None:
        now = timezone.now()
        patch = next((p for p in patches if p.live_at <= now), None)
    elif name == ALL_TIME:
        patch = None
    else:
        patch = next((p for p in patches if p.name == name), None)
        if patch is None:
            raise UnknownPatch(name)
    previous = None
    if patch is not None:
        previous = next((p for p in patches if p.live_at < patch.live_at), None)
    return PatchChoice(patch, previous, patches)
