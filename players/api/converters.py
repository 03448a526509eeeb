"""Path converters for API URLs: anything else is a 404 before a view or the database sees it."""

from __future__ import annotations

from django.urls.converters import StringConverter


class PlayerIdConverter(StringConverter):
    """The game's player ids: up to 32 digits (as replays are validated)."""

    regex = "[0-9]{1,32}"


class CharacterConverter(StringConverter):
    """A character's short code (any case) or numeric id."""

    regex = "[A-Za-z0-9]{1,4}"
