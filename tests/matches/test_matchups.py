"""The character matchup matrix: P(row beats column) from the two matchup ratings."""

from __future__ import annotations

import re

import pytest

from matches.models import CharacterMatchup
from matches.ratings.glicko import win_probability
from matches.selectors.matchups import matchup_matrix
from tests.fixtures.pages import QUERY_LIMIT

pytestmark = pytest.mark.django_db


def test_cells_are_win_probabilities_of_the_pair(league):
    matrix = matchup_matrix("all")
    ratings = {
        (m.character_id, m.opponent_id): m for m in CharacterMatchup.objects.filter(bracket="all")
    }
    checked = 0
    for row in matrix.rows:
        for cell in row.cells:
            mine = ratings.get((row.character.id, cell.opponent.id))
            if cell.probability is None:
                assert mine is None or mine.wins + mine.losses == 0
                continue
            theirs = ratings[(cell.opponent.id, row.character.id)]
            assert cell.probability == pytest.approx(
                win_probability(mine.value, mine.deviation, theirs.value, theirs.deviation)
            )
            assert (cell.wins, cell.losses) == (mine.wins, mine.losses)
            checked += 1
    assert checked > 100
    averages = [row.average for row in matrix.rows if row.average is not None]
    assert averages == sorted(averages, reverse=True)
    assert matrix.columns == [row.character for row in matrix.rows]


def test_mirror_cells_add_up_to_one(league):
    matrix = matchup_matrix("all")
    cells = {
        (row.character.id, cell.opponent.id): cell for row in matrix.rows for cell in row.cells
    }
    for (x, y), cell in cells.items():
        if cell.probability is not None and cells[(y, x)].probability is not None:
            assert cell.probability + cells[(y, x)].probability == pytest.approx(1.0)


def test_page_shows_colours_counts_and_brackets(client, league, django_assert_max_num_queries):
    for bracket in ("all", "top1000", "top100"):
        with django_assert_max_num_queries(QUERY_LIMIT):
            response = client.get(f"/matchups?bracket={bracket}")
        assert response.status_code == 200
    html = client.get("/matchups").content.decode()
    assert 'aria-current="page">All<' in html
    row = matchup_matrix("all").rows[0]
    cell = next(c for c in row.cells if c.probability is not None)
    title = (
        f"{row.character.name} vs {cell.opponent.name}: {100 * cell.probability:.1f}% "
        f"({cell.games} game{'s' if cell.games != 1 else ''}, {cell.wins}\u2013{cell.losses})"
    )
    pattern = rf'class="num heat-(\d+)" data-sort="[^"]+" title="{re.escape(title)}"'
    found = re.search(pattern, html.replace("&#x27;", "'").replace("&#39;", "'"))
    assert found and abs(int(found[1]) - 10 * cell.probability) <= 0.5  # the nearest tenth
    assert "data-sortable" in html


def test_unknown_bracket_is_404(client, db):
    assert client.get("/matchups?bracket=top5").status_code == 404
