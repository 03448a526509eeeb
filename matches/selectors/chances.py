"""The one chance every page and API answer shows for a game (docs/rating-model.md#one-chance):
`glicko.chance` under the site's settings, with the matchup offset of the two characters
from the character matchup table (bracket "all"), each offset shrunk toward 0 by its
uncertainty. The rating service rates with the same model (it reads `chance_model` too),
so the chance shown is the expected score the update uses; a game already rated shows
the chance stored with it.

Read it once per page or response: the offsets come from the cache (or one query).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from django.core.cache import cache

from matches.models import CharacterMatchup
from matches.params import glicko_params
from matches.ratings.glicko import GlickoParams, chance, win_probability
from matches.ratings.matchup_offset import Offset, shrunk_offsets
from web.generation import current_generation


@dataclass(frozen=True)
class GameChance:
    """A game's chance for side A, in its two parts: the ratings alone (§4.2's P) and what
    A's character is worth against B's, in rating points."""

    ratings: float
    offset: float
    chance: float


@dataclass(frozen=True)
class ChanceModel:
    params: GlickoParams
    # (character, opposing character) -> rating points, shrunk; only under one chance.
    offsets: Mapping[tuple[int, int], float] = field(default_factory=dict)

    def offset(self, character: int | None, opponent: int | None) -> float:
        """What `character` is worth against `opponent` (0: unknown, a mirror, no estimate)."""
        if character is None or opponent is None:
            return 0.0
        return self.offsets.get((character, opponent), 0.0)

    def game(
        self,
        value: float,
        deviation: float,
        opponent_value: float,
        opponent_deviation: float,
        character: int | None = None,
        opponent_character: int | None = None,
    ) -> GameChance:
        offset = self.offset(character, opponent_character)
        return GameChance(
            win_probability(value, deviation, opponent_value, opponent_deviation),
            offset,
            chance(value, deviation, opponent_value, opponent_deviation, self.params, offset),
        )


def matchup_offsets() -> dict[tuple[int, int], float]:
    """The character matchup table's offsets (bracket "all"), shrunk: kept in the cache
    for the ratings generation (every refresh and recompute bumps it after rebuilding
    the table), else one query."""
    version = current_generation()
    offsets = cache.get(_OFFSETS_KEY, version=version)
    if offsets is None:
        offsets = _shrunk_table()
        cache.set(_OFFSETS_KEY, offsets, _OFFSETS_SECONDS, version=version)
    return offsets


_OFFSETS_KEY = "chance-offsets"
_OFFSETS_SECONDS = 3600


def _shrunk_table() -> dict[tuple[int, int], float]:
    table = {
        (character, opponent): Offset(offset, error)
        for character, opponent, offset, error in CharacterMatchup.objects.filter(
            bracket=CharacterMatchup.Bracket.ALL
        ).values_list("character_id", "opponent_id", "offset", "standard_error")
    }
    return shrunk_offsets(table)


def chance_model() -> ChanceModel:
    """The site's chance model now: its settings, and (under one chance) the offsets."""
    params = glicko_params()
    return ChanceModel(params, matchup_offsets() if params.one_chance else {})
