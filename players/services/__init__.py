"""Writes on players and the roster."""

from __future__ import annotations

from players.models import Character
from players.roster import ROSTER


def ensure_roster() -> None:
    """Create any roster character missing from the database (the data migration's rows)."""
    Character.objects.bulk_create(
        [Character(id=cid, code=code, name=name) for cid, code, name in ROSTER],
        ignore_conflicts=True,
    )
