"""The character matchup matrix (DESIGN.md sections 4.5 and 6, `/matchups`)."""

from __future__ import annotations

from dataclasses import dataclass

from matches.models import CharacterMatchup
from matches.ratings.glicko import win_probability
from players.models import Character
from players.selectors.ratings import characters


@dataclass(frozen=True)
class MatchupCell:
    opponent: Character
    probability: float | None  # P(row character beats column character); None: no games
    wins: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.losses


@dataclass(frozen=True)
class MatchupRow:
    character: Character
    cells: list[MatchupCell]

    @property
    def average(self) -> float | None:
        """The mean win probability over the opponents with games (mirror excluded)."""
        known = [
            cell.probability
            for cell in self.cells
            if cell.probability is not None and cell.opponent.id != self.character.id
        ]
        return sum(known) / len(known) if known else None


@dataclass(frozen=True)
class MatchupMatrix:
    bracket: str
    rows: list[MatchupRow]  # strongest first; columns come in the same order

    @property
    def columns(self) -> list[Character]:
        return [row.character for row in self.rows]


BRACKETS = tuple(CharacterMatchup.Bracket)


def matchup_matrix(bracket: str = CharacterMatchup.Bracket.ALL) -> MatchupMatrix:
    """P(X beats Y) for every pair of characters in a bracket, from the two matchup
    ratings (X vs Y) and (Y vs X); two queries."""
    roster = characters()
    # (wins, losses, value, deviation) by (character, opponent), as plain rows: up to
    # 27 x 27 of them, which as model objects cost more than drawing the page.
    ratings = {
        (character, opponent): rest
        for character, opponent, *rest in CharacterMatchup.objects.filter(
            bracket=bracket
        ).values_list("character_id", "opponent_id", "wins", "losses", "value", "deviation")
    }
    rows = []
    for character in roster:
        cells = []
        for opponent in roster:
            mine, theirs = (
                ratings.get((character.id, opponent.id)),
                ratings.get((opponent.id, character.id)),
            )
            if mine is None or theirs is None or mine[0] + mine[1] == 0:
                cells.append(MatchupCell(opponent, None, 0, 0))
                continue
            wins, losses, value, deviation = mine
            probability = win_probability(value, deviation, theirs[2], theirs[3])
            cells.append(MatchupCell(opponent, probability, wins, losses))
        rows.append(MatchupRow(character, cells))
    averages = [row.average for row in rows]
    order = sorted(
        range(len(rows)),
        key=lambda i: (averages[i] is None, -(averages[i] or 0.0), rows[i].character.id),
    )
    return MatchupMatrix(
        bracket, [MatchupRow(rows[i].character, [rows[i].cells[j] for j in order]) for i in order]
    )
