"""The roster as every reader sees it: the Character table, read once per ratings
generation (web.generation) in each process.

Saving a character in the admin bumps the generation, so every web process and worker
reads the new roster on its next request or task, without a restart (docs/roster.md).
Anything else that bumps it (every rating batch) costs one read of a few dozen rows.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from players.models import Character
from web.generation import current_generation


@dataclass(frozen=True)
class Roster:
    """Every character, in display order, and the same by id and by code."""

    characters: tuple[Character, ...]
    by_id: dict[int, Character] = field(init=False)
    by_code: dict[str, Character] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {c.id: c for c in self.characters})
        object.__setattr__(self, "by_code", {c.code: c for c in self.characters})

    @property
    def codes(self) -> dict[str, int]:
        """Each code with its id, as replay validation takes them."""
        return {c.code: c.id for c in self.characters}


_lock = threading.Lock()
_read: tuple[int, Roster] | None = None  # (generation, the roster read in it)


def current_roster() -> Roster:
    """The roster of the current generation: one cache read, and one query the first time
    a process asks in a generation."""
    global _read
    generation = current_generation()
    read = _read
    if read is not None and read[0] == generation:
        return read[1]
    roster = Roster(tuple(Character.objects.all()))
    with _lock:
        _read = (generation, roster)
    return roster
