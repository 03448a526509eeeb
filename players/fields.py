"""Model fields of the players app."""

from __future__ import annotations

from typing import Any

from django.db import models


class IdentifierField(models.CharField):
    """Text that names something and is never read as language: a player's id, a
    source's replay id.

    It is compared byte by byte (the "C" collation) instead of by the database's
    language rules. The order of ids is the same for the digits they hold,
    but each comparison costs a fraction, and the indexes on ids compare on every
    insert: at ten million games, the two side indexes of Match (player, character,
    time), its unique replay key, the unique keys of players, names and ratings, and
    the sorts that build them after a bulk load.
    """

    def db_parameters(self, connection: Any) -> dict[str, Any]:
        parameters = super().db_parameters(connection)
        parameters["collation"] = "C"
        return parameters
