"""The character matchup matrix page (`/matchups`)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from matches.models import CharacterMatchup
from matches.selectors.matchups import MatchupCell, MatchupRow, matchup_matrix
from players.formatting import heat, percent, percent_number
from web.partials import render_partial


def cell_text(row: MatchupRow, cell: MatchupCell) -> dict[str, str]:
    """What a matrix cell shows, as a flat dict of texts for its partial (web.partials)."""
    pair = f"{row.character.name} vs {cell.opponent.name}"
    if cell.probability is None:
        return {"css": "heat-none", "sort": "-1", "title": f"{pair}: no games", "label": "·"}
    games = f"{cell.games} game{'' if cell.games == 1 else 's'}, {cell.wins}\u2013{cell.losses}"
    return {
        "css": heat(cell.probability),
        "sort": str(cell.probability),
        "title": f"{pair}: {percent(cell.probability)} ({games})",
        "label": percent_number(cell.probability, 0),
    }


def matchups(request: HttpRequest) -> HttpResponse:
    bracket = request.GET.get("bracket", CharacterMatchup.Bracket.ALL)
    if bracket not in CharacterMatchup.Bracket.values:
        raise Http404("Unknown bracket.")
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
        {"matrix": matrix, "rows": rows, "brackets": CharacterMatchup.Bracket.choices},
    )
