"""Writes on players and the roster."""

from __future__ import annotations

from django.db.models import Max

from players.models import Character
from players.seed_roster import SEED_ROSTER
from web.generation import bump_generation


def ensure_roster() -> None:
    """Create any seed character missing from the database (migration 0002's rows), for
    tests that empty the table."""
    Character.objects.bulk_create(
        [
            Character(id=cid, code=code, name=name, display_order=cid)
            for cid, code, name in SEED_ROSTER
        ],
        ignore_conflicts=True,
    )
    bump_generation()


def new_character_defaults() -> dict[str, int]:
    """The id and display order of a character added now: after every other one."""
    found = Character.objects.aggregate(id=Max("id"), display_order=Max("display_order"))
    return {key: 0 if value is None else value + 1 for key, value in found.items()}
