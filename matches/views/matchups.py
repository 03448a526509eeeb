"""The character matchup matrix page (`/matchups`)."""

from __future__ import annotations

from typing import NamedTuple

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from matches.models import CharacterMatchup
from matches.selectors.matchups import MatchupCell, MatchupRow, matchup_matrix
from players.formatting import heat, percent, percent_number
from web.errors import InvalidQuery, one_of
from web.partials import render_partial
from web.previews import LinkPreview


class CellText(NamedTuple):
    """What a matrix cell shows, as `matches/matchup_cells.html` places it."""

    css: str
    sort: str
    title: str
    label: str


def cell_text(row: MatchupRow, cell: MatchupCell) -> CellText:
    """A matrix cell's texts."""
    pair = f"{row.character.name} vs {cell.opponent.name}"
    if cell.mirror:
        return CellText(css="heat-5", sort="0.5", title=f"{pair}: 50% (a mirror)", label="50")
    estimate = cell.estimate
    if estimate.offset is None:
        return CellText(css="heat-none", sort="-1", title=f"{pair}: no games", label="·")
    low, high = estimate.interval
    games = estimate.games
    title = (
        f"{pair}: {percent(estimate.probability)} at equal skill "
        f"(95% interval {percent(low)}\u2013{percent(high)}); "
        f"{games} game{'' if games == 1 else 's'}, {estimate.wins}\u2013{estimate.losses}, "
        f"{estimate.expected_wins:.1f} wins expected from ratings alone"
    )
    if estimate.uncertain:
        title += "; uncertain: too few games"
    return CellText(
        css="heat-none uncertain" if estimate.uncertain else heat(estimate.probability),
        sort=str(estimate.probability),
        title=title,
        label=percent_number(estimate.probability, 0),
    )


def matchups(request: HttpRequest) -> HttpResponse:
    bracket = request.GET.get("bracket", CharacterMatchup.Bracket.ALL)
    if bracket not in CharacterMatchup.Bracket.values:
        raise InvalidQuery("bracket", one_of(CharacterMatchup.Bracket.values))
    matrix = matchup_matrix(bracket)
    rows = [
        (
            row,
            render_partial(
                "matches/matchup_cells.html", {"cells": [cell_text(row, c) for c in row.cells]}
            ),
        )
        for row in matrix.rows
    ]
    return render(
        request,
        "matches/matchups.html",
        {
            "matrix": matrix,
            "rows": rows,
            "brackets": CharacterMatchup.Bracket.choices,
            "preview": LinkPreview(
                "Character matchups",
                f"How often each of {len(matrix.rows)} characters beats each other at equal "
                f"skill, with 95% intervals (games: {CharacterMatchup.Bracket(bracket).label}).",
            ),
        },
    )
