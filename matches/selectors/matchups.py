"""Matchup estimates (docs/rating-model.md#matchups): the character matchup matrix (`/matchups`)
and a rating's matchups against each opposing character (the profile)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from django.conf import settings
from django.db.models import F, Sum
from django.utils.functional import cached_property

from matches.models import CharacterMatchup, Match, Patch
from matches.ratings.matchup_offset import (
    Z95,
    Offset,
    OffsetEvidence,
    expected,
    one_step_offset,
)
from matches.selectors.patches import PatchChoice
from players.models import Character, PlayerMatchup
from players.selectors.ratings import characters


class MatchupEstimate(NamedTuple):
    """An offset in rating points with what it was estimated from (made by `of`); `offset`
    is None without games. P(win at equal skill) and its 95% interval follow from the
    offset. A tuple, as cells are: a full matrix makes 702 of each, and a frozen
    dataclass costs several times as much to make (issue 35's flat-cost ratio)."""

    offset: Offset | None
    wins: int
    losses: int
    expected_wins: float  # from the pre-game ratings alone, the offset left out
    # Worked out once by `of` (None without games), as a matrix page reads each cell's a
    # dozen times (its row's average and order, the heat scale, the cell's texts):
    # P(win at equal skill), its 95% interval and half that interval in rating points.
    probability: float | None = None
    interval: tuple[float, float] | None = None
    half_width: float | None = None

    @classmethod
    def of(
        cls, offset: Offset | None, wins: int, losses: int, expected_wins: float
    ) -> MatchupEstimate:
        """The estimate, or one without an offset when there were no games."""
        if offset is None or not wins + losses:
            return cls(None, wins, losses, expected_wins)
        return cls.from_offset(offset, wins, losses, expected_wins)

    @classmethod
    def from_offset(
        cls, offset: Offset, wins: int, losses: int, expected_wins: float
    ) -> MatchupEstimate:
        """The estimate of `offset`, games or not (a mirror has none)."""
        return cls(
            offset,
            wins,
            losses,
            expected_wins,
            offset.probability,
            offset.interval(),
            offset.half_width(),
        )

    @property
    def games(self) -> int:
        return self.wins + self.losses

    @property
    def uncertain(self) -> bool:
        """Too few games to say much: the interval is wider than MATCHUP_WIDE_INTERVAL."""
        return self.wider_than(settings.MATCHUP_WIDE_INTERVAL)

    def wider_than(self, half_width: float) -> bool:
        """Whether half the 95% interval is wider than `half_width` rating points: `uncertain`
        for a page that reads the setting once for all its cells (a read of Django's
        settings costs a microsecond, more than the rest of this)."""
        return self.half_width is not None and self.half_width > half_width


def uncertain_half_width() -> float:
    """MATCHUP_WIDE_INTERVAL as a chance: how far from 50% the interval of an even matchup
    reaches (0.1 for 70 points) when it is just wide enough to be uncertain."""
    return expected(settings.MATCHUP_WIDE_INTERVAL) - 0.5


def estimate_of_sums(evidence: OffsetEvidence) -> MatchupEstimate:
    """A rating's estimate from its running sums (one scoring step, see matchup_offset)."""
    return MatchupEstimate.of(
        one_step_offset(evidence, settings.MATCHUP_PRIOR_DEVIATION),
        evidence.wins,
        evidence.games - evidence.wins,
        evidence.expected_wins,
    )


@dataclass(frozen=True)
class MatchupChange:
    """How much P(win at equal skill) moved from one patch's table to the next, with the
    95% interval of the move (the two estimates' errors taken as independent)."""

    change: float
    low: float
    high: float

    @classmethod
    def between(cls, before: Offset, after: Offset) -> MatchupChange:
        # d p / d m of p = 1 / (1 + 10^(-m/400)): the delta method, chance by chance.
        def spread(offset: Offset) -> float:
            p = offset.probability
            return p * (1.0 - p) * math.log(10.0) / 400.0 * offset.standard_error

        change = after.probability - before.probability
        half = Z95 * math.hypot(spread(before), spread(after))
        return cls(change, change - half, change + half)


class MatchupCell(NamedTuple):
    opponent: Character
    estimate: MatchupEstimate
    mirror: bool = False  # X vs X: 50% by definition, from no games
    # Since the previous patch's table (a patch's table only; None without games in both).
    change: MatchupChange | None = None

    @property
    def probability(self) -> float | None:
        return self.estimate.probability


@dataclass(frozen=True)
class MatchupRow:
    character: Character
    cells: list[MatchupCell]

    # Kept, as the chance is: the matrix reads each row's average and its sureness to
    # order the rows and again to show them, each time over every cell.
    @cached_property
    def average(self) -> float | None:
        """The mean win probability over the opponents with games (mirror excluded)."""
        known = [c.probability for c in self._known()]
        return sum(known) / len(known) if known else None

    @cached_property
    def average_uncertain(self) -> bool:
        """Whether the average is as unsure as an uncertain cell: the half-width of its
        95% interval (the cells' errors taken as independent, averaged in rating points)
        is wider than MATCHUP_WIDE_INTERVAL. A new character's few games make one."""
        widths = [c.estimate.half_width for c in self._known()]
        if not widths:
            return False
        return math.hypot(*widths) / len(widths) > settings.MATCHUP_WIDE_INTERVAL

    def _known(self) -> list[MatchupCell]:
        return [c for c in self.cells if c.probability is not None and not c.mirror]


@dataclass(frozen=True)
class MatchupMatrix:
    bracket: str
    rows: list[MatchupRow]  # strongest first; columns come in the same order
    patch: str = "all"  # the patch's name, or "all" (matches.selectors.patches)
    previous_patch: str | None = None  # the patch the changes are measured from

    @property
    def columns(self) -> list[Character]:
        return [row.character for row in self.rows]


BRACKETS = tuple(CharacterMatchup.Bracket)
_NO_GAMES = MatchupEstimate(None, 0, 0, 0.0)
_MIRROR = MatchupEstimate.from_offset(Offset(0.0, 0.0), 0, 0, 0.0)


# What a stored matchup holds past its bracket and patch, as `_estimates` reads it.
ESTIMATE_COLUMNS = (
    "character_id",
    "opponent_id",
    "wins",
    "losses",
    "expected_wins",
    "offset",
    "standard_error",
)


def _estimates(bracket: str, patch: Patch | None) -> dict[int, dict[int, MatchupEstimate]]:
    """A bracket's stored estimates, of a patch or (None) of all time, by character id
    and opponent id."""
    # Up to 27 x 26 rows, as plain tuples: as model objects they cost more than the page.
    rows = CharacterMatchup.objects.filter(bracket=bracket, patch=patch).values_list(
        *ESTIMATE_COLUMNS
    )
    estimates: dict[int, dict[int, MatchupEstimate]] = {}
    for character, opponent, wins, losses, expected_wins, offset, error in rows:
        estimate = MatchupEstimate.of(Offset(offset, error), wins, losses, expected_wins)
        estimates.setdefault(character, {})[opponent] = estimate
    return estimates


def _change(before: MatchupEstimate | None, after: MatchupEstimate) -> MatchupChange | None:
    if before is None or before.offset is None or after.offset is None:
        return None
    return MatchupChange.between(before.offset, after.offset)


def matchup_matrix(
    bracket: str = CharacterMatchup.Bracket.ALL,
    choice: PatchChoice | None = None,
) -> MatchupMatrix:
    """P(X beats Y at equal skill) for every pair of characters in a bracket, of all time
    or of the chosen patch, from the fitted offsets (matches.services.character_matchups),
    each patch's cell with its change since the previous patch; three queries at most."""
    choice = choice or PatchChoice(None, None, [])
    roster = characters()
    estimates = _estimates(bracket, choice.patch)
    before = {} if choice.previous is None else _estimates(bracket, choice.previous)

    def cells(character: Character) -> list[MatchupCell]:
        mine, earlier = estimates.get(character.id, {}), before.get(character.id, {})

        def cell(opponent: Character) -> MatchupCell:
            if opponent.id == character.id:
                return MatchupCell(opponent, _MIRROR, True)
            estimate = mine.get(opponent.id, _NO_GAMES)
            return MatchupCell(
                opponent, estimate, False, _change(earlier.get(opponent.id), estimate)
            )

        return [cell(opponent) for opponent in roster]

    rows = [MatchupRow(character, cells(character)) for character in roster]
    # Sure averages first: a character with a handful of games does not head the table.
    averages = [row.average for row in rows]
    order = sorted(
        range(len(rows)),
        key=lambda i: (
            averages[i] is None,
            rows[i].average_uncertain,
            -(averages[i] or 0.0),
            rows[i].character.id,
        ),
    )
    return MatchupMatrix(
        bracket,
        [MatchupRow(rows[i].character, [rows[i].cells[j] for j in order]) for i in order],
        choice.key,
        None if choice.previous is None else choice.previous.name,
    )


def bracket_games(patch: Patch | None = None) -> dict[str, int]:
    """The counted games between two different characters in each bracket, of all time
    or of a patch (a mirror has no offset to fit, so none is stored); one query."""
    totals = dict(
        CharacterMatchup.objects.filter(patch=patch)
        .values_list("bracket")
        .annotate(games=Sum(F("wins") + F("losses")))
        .values_list("bracket", "games")
    )
    # Both orientations of a pair are stored, each game once in each.
    return {bracket: totals.get(bracket, 0) // 2 for bracket in CharacterMatchup.Bracket.values}


@dataclass(frozen=True)
class PlayerMatchupRow:
    opponent_character: Character
    estimate: MatchupEstimate


@dataclass(frozen=True)
class PlayerMatchups:
    rows: list[PlayerMatchupRow]  # by opposing character id
    overall: MatchupEstimate  # every opposing character's games together


def player_matchups(matchups: list[PlayerMatchup]) -> PlayerMatchups:
    """A rating's estimate against each opposing character met, and overall, from its
    stored sums (opposing characters already loaded)."""
    rows, overall = [], OffsetEvidence()
    for matchup in matchups:
        evidence = OffsetEvidence(
            matchup.wins + matchup.losses,
            matchup.wins,
            matchup.expected_wins,
            matchup.information,
        )
        overall += evidence
        rows.append(PlayerMatchupRow(matchup.opponent_character, estimate_of_sums(evidence)))
    return PlayerMatchups(rows, estimate_of_sums(overall))


def rating_patch_matchups(player_id: str, character_id: int, patch: Patch) -> list[PlayerMatchup]:
    """A rating's matchup sums over its counted games of one patch, as `PlayerMatchup`
    rows (unsaved; the all-time ones are stored) for `player_matchups`: summed here from
    the rating's own games, found along its side indexes, as the rating ledger sums them
    (matches.ratings.ledger.MatchupLedger); by opposing character id."""
    games = (
        Match.objects.of_rating(player_id, character_id)
        .filter(patch=patch, rating__counted=True)
        .values_list(
            "player_a_id",
            "character_a_id",
            "character_b_id",
            "winner",
            "rating__value_a",
            "rating__value_b",
        )
    )
    sums: dict[int, PlayerMatchup] = {}
    roster = {character.id: character for character in characters()}
    for player_a, character_a, character_b, winner, value_a, value_b in games:
        on_a = player_a == player_id and character_a == character_id
        opponent = character_b if on_a else character_a
        expected_a = expected(value_a - value_b)
        won = (winner == Match.Winner.A) == on_a
        row = sums.get(opponent)
        if row is None:
            row = sums[opponent] = PlayerMatchup(opponent_character=roster[opponent])
        row.wins += won
        row.losses += not won
        row.expected_wins += expected_a if on_a else 1.0 - expected_a
        row.information += expected_a * (1.0 - expected_a)
    return [sums[opponent] for opponent in sorted(sums)]
