"""The character matchup page (`/matchups`): the matrix of a bracket, or one character
against every other (`?character=ZA`)."""

from __future__ import annotations

from typing import NamedTuple

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from matches.models import BRACKET_LIMITS, PROPORTIONAL_BRACKET_SIZE, CharacterMatchup
from matches.selectors.matchups import (
    MatchupCell,
    MatchupChange,
    MatchupMatrix,
    MatchupRow,
    bracket_games,
    matchup_matrix,
    uncertain_half_width,
)
from matches.views.patches import chosen_patch, patch_query, patch_texts
from players.formatting import (
    HeatScale,
    change_class,
    count_number,
    count_text,
    percent,
    percent_number,
    record_text,
    shown_points,
    signed_text,
)
from web.errors import InvalidQuery, one_of
from web.partials import render_partial
from web.previews import LinkPreview

# A bracket with at least this share of the games between characters differs little
# from "all", and says so.
NEARLY_EVERY_GAME = 0.9


class CellText(NamedTuple):
    """What a matrix cell shows, as `matches/matchup_cells.html` places it."""

    css: str
    sort: str
    title: str  # one fact a line: a tooltip on hover, the details a tap opens (matchups-1.0.js)
    label: str
    moved: str  # "▲" / "▼" when the change since the previous patch is clear of zero
    moved_css: str


class OpponentText(NamedTuple):
    """One row of a character's view: its chance against one opponent, with the evidence."""

    name: str
    code: str
    css: str
    sort: str
    chance: str
    interval: str
    games: str
    games_sort: int
    record: str
    wins_sort: int
    expected: str
    expected_sort: str
    uncertain: bool
    change: str  # since the previous patch, in percentage points, with its interval
    change_css: str
    change_sort: str


class BracketText(NamedTuple):
    key: str
    label: str
    games: str


def change_text(change: MatchupChange | None) -> str:
    """'+3.1 (-0.8 to +7.0)': the move in percentage points with its 95% interval."""
    if change is None:
        return ""
    low, high = (signed_text(100 * bound) for bound in (change.low, change.high))
    return f"{signed_text(100 * change.change)} ({low} to {high})"


def _clear_move(change: MatchupChange | None) -> tuple[str, str]:
    """An arrow and its colour when the interval of the change leaves out zero."""
    if change is None or change.low <= 0.0 <= change.high:
        return "", ""
    return ("\u25b2", "up") if change.change > 0 else ("\u25bc", "down")


class ShownChance(NamedTuple):
    """A matrix cell's chance as the page shows it, worked out once a cell for its label,
    its colour and the heat scale (a full matrix has 702 cells with games)."""

    label: str  # the whole percent, '54'
    points: int  # from 50, 4
    uncertain: bool


class MatrixLines(NamedTuple):
    """What the cells of one matrix share, made once a page."""

    colours: dict[int, str]  # the heat class of a chance shown so many points from 50
    uncertain: str  # the line ending an uncertain cell's details
    since: str  # how the line of a cell's change since the previous patch starts


def shown_chances(matrix: MatchupMatrix) -> list[list[ShownChance | None]]:
    """Each cell's shown chance, row by row; None for a mirror and a pair without games."""
    wide = settings.MATCHUP_WIDE_INTERVAL
    return [[_shown_chance(cell, wide) for cell in row.cells] for row in matrix.rows]


def _shown_chance(cell: MatchupCell, wide: float) -> ShownChance | None:
    estimate = cell.estimate
    if cell.mirror or estimate.offset is None:
        return None
    label = percent_number(estimate.probability, 0)
    return ShownChance(label, shown_points(label), estimate.wider_than(wide))


def matrix_lines(matrix: MatchupMatrix, scale: HeatScale) -> MatrixLines:
    """What every cell of the matrix shares: the colour of each whole percentage (there
    are 101), the line on uncertainty and how the line on a change starts."""
    return MatrixLines(
        {points: scale.css_of_points(points) for points in range(-50, 51)},
        f"Uncertain: the interval is wider than {_wide_interval_text()}",
        f"Since patch {matrix.previous_patch}: ",
    )


def cell_text(
    row: MatchupRow, cell: MatchupCell, chance: ShownChance | None, lines: MatrixLines
) -> CellText:
    """A matrix cell's texts, from its shown chance (`shown_chances`)."""
    pair = f"{row.character.name} vs {cell.opponent.name}"
    if cell.mirror:
        return CellText("heat-even", "0.5", f"{pair}\n50% (a mirror)", "50", "", "")
    if chance is None:
        return CellText("heat-none", "-1", f"{pair}\nno games", "·", "", "")
    estimate = cell.estimate
    low, high = estimate.interval
    title = (
        f"{pair}\n{percent(estimate.probability)} at equal skill\n"
        f"95% interval {percent(low)}\u2013{percent(high)}\n"
        f"{count_text(estimate.games, 'game')}, {record_text(estimate.wins, estimate.losses)}\n"
        f"{estimate.expected_wins:.1f} wins expected from ratings alone"
    )
    if chance.uncertain:
        title += f"\n{lines.uncertain}"
    if cell.change is not None:
        title += f"\n{lines.since}{change_text(cell.change)} percentage points"
    moved, moved_css = _clear_move(cell.change)
    return CellText(
        "heat-none uncertain" if chance.uncertain else lines.colours[chance.points],
        str(estimate.probability),
        title,
        chance.label,
        moved,
        moved_css,
    )


def opponent_text(cell: MatchupCell, scale: HeatScale) -> OpponentText:
    """A character's row against one opponent (the mirror included, at its 50%)."""
    estimate = cell.estimate
    name, code = cell.opponent.listed_name, cell.opponent.code
    if estimate.offset is None:
        return OpponentText(
            name, code, "heat-none", "-1", "·", "", "0", 0, "", 0, "", "-1", False, "", "", "-1000"
        )
    low, high = estimate.interval
    change = change_text(cell.change)
    return OpponentText(
        name=name,
        code=code,
        css="heat-even" if cell.mirror else _cell_css(cell, scale),
        sort=str(estimate.probability),
        chance=percent(estimate.probability, 0),
        interval="a mirror"
        if cell.mirror
        else f"{percent_number(low, 0)}\u2013{percent_number(high, 0)}",
        games=count_number(estimate.games),
        games_sort=estimate.games,
        record=record_text(estimate.wins, estimate.losses),
        wins_sort=estimate.wins,
        expected=f"{estimate.expected_wins:.1f}",
        expected_sort=f"{estimate.expected_wins:.3f}",
        uncertain=estimate.uncertain,
        change=change,
        change_css=change_class(change) if _clear_move(cell.change)[0] else "",
        change_sort="-1000" if cell.change is None else f"{cell.change.change:.5f}",
    )


def _cell_css(cell: MatchupCell, scale: HeatScale) -> str:
    return "heat-none uncertain" if cell.estimate.uncertain else scale.css(cell.probability)


def _wide_interval_text() -> str:
    """The half-width past which a chance is uncertain, in percentage points at even odds."""
    return f"±{percent_number(uncertain_half_width(), 0)} percentage points"


def heat_scale(shown: list[list[ShownChance | None]]) -> HeatScale:
    """Colours spanning the chances of the bracket's certain cells (the grey ones need none)."""
    return HeatScale.spanning_points(
        chance.points
        for row in shown
        for chance in row
        if chance is not None and not chance.uncertain
    )


def bracket_note(bracket: str, games: dict[str, int]) -> str:
    """What a bracket holds, in words: '… both players in the top 100 of their character:
    1,234 games (12% of all)', and when it holds nearly every game, that too."""
    count = count_text(games[bracket], "game")
    if bracket == CharacterMatchup.Bracket.ALL:
        return f"All: every counted game between two different characters, {count}."
    share = games[bracket] / games[CharacterMatchup.Bracket.ALL] if games[bracket] else 0.0
    if bracket == CharacterMatchup.Bracket.PROPORTIONAL:
        held = (
            f"Proportional: games where each player now ranks within "
            f"{PROPORTIONAL_BRACKET_SIZE:,} times their character's share of play (a character "
            f"with 10% of the games: its top {PROPORTIONAL_BRACKET_SIZE // 10:,})"
        )
    else:
        limit = BRACKET_LIMITS[bracket]
        held = (
            f"Top {limit:,}: games where both players are now in the top {limit:,} of their "
            "character's rankings"
        )
    note = f"{held}, {count} ({percent(share, 0)} of all)"
    if share >= NEARLY_EVERY_GAME:
        note += ": nearly every game, so it differs little from All"
    return note + "."


def matchups(request: HttpRequest) -> HttpResponse:
    bracket = request.GET.get("bracket", CharacterMatchup.Bracket.ALL)
    if bracket not in CharacterMatchup.Bracket.values:
        raise InvalidQuery("bracket", one_of(CharacterMatchup.Bracket.values))
    choice = chosen_patch(request)
    matrix = matchup_matrix(bracket, choice)
    games = bracket_games(choice.patch)
    shown = shown_chances(matrix)
    scale = heat_scale(shown)
    context = {
        "matrix": matrix,
        "patch": choice,
        "patches": patch_texts(choice),
        # Links keep the patch once there are patches to choose from.
        "patch_query": patch_query(choice),
        "brackets": [
            BracketText(key, label, count_number(games[key]))
            for key, label in CharacterMatchup.Bracket.choices
        ],
        "bracket_note": bracket_note(bracket, games),
        "legend": scale.legend(),
        "wide_interval": _wide_interval_text(),
        "preview": LinkPreview(
            "Character matchups",
            f"How often each of {len(matrix.rows)} characters beats each other at equal "
            f"skill, with 95% intervals (games: {CharacterMatchup.Bracket(bracket).label}, "
            f"{choice.label.lower()}).",
        ),
    }
    code = request.GET.get("character")
    if code is None:
        lines = matrix_lines(matrix, scale)
        context["rows"] = [
            (
                row,
                render_partial(
                    "matches/matchup_cells.html",
                    {
                        "cells": [
                            cell_text(row, cell, chance, lines)
                            for cell, chance in zip(row.cells, row_shown, strict=True)
                        ]
                    },
                ),
            )
            for row, row_shown in zip(matrix.rows, shown, strict=True)
        ]
        return render(request, "matches/matchups.html", context)
    focus = next((row for row in matrix.rows if row.character.code == code), None)
    if focus is None:
        raise InvalidQuery("character", one_of([row.character.code for row in matrix.rows]))
    context["focus"] = focus
    context["opponents"] = [opponent_text(cell, scale) for cell in focus.cells]
    return render(request, "matches/matchups.html", context)
