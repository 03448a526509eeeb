"""The character matchup matrix: P(row beats column at equal skill) from fitted offsets."""

from __future__ import annotations

import re

import pytest

from matches.models import CharacterMatchup
from matches.ratings.matchup_offset import Offset
from matches.selectors.matchups import matchup_matrix
from tests.fixtures.pages import QUERY_LIMIT

pytestmark = pytest.mark.django_db


def test_cells_are_the_fitted_offsets_of_the_pair(league):
    matrix = matchup_matrix("all")
    stored = {
        (m.character_id, m.opponent_id): m for m in CharacterMatchup.objects.filter(bracket="all")
    }
    checked = 0
    for row in matrix.rows:
        for cell in row.cells:
            mine = stored.get((row.character.id, cell.opponent.id))
            if cell.mirror:
                assert mine is None and cell.probability == 0.5
                continue
            if cell.probability is None:
                assert mine is None
                continue
            offset = Offset(mine.offset, mine.standard_error)
            assert cell.probability == pytest.approx(offset.probability)
            assert cell.estimate.interval == pytest.approx(offset.interval())
            assert (cell.estimate.wins, cell.estimate.losses) == (mine.wins, mine.losses)
            assert cell.estimate.expected_wins == pytest.approx(mine.expected_wins)
            checked += 1
    assert checked > 100
    averages = [row.average for row in matrix.rows if row.average is not None]
    assert averages == sorted(averages, reverse=True)
    assert matrix.columns == [row.character for row in matrix.rows]


def test_page_shows_colours_counts_and_brackets(client, league, django_assert_max_num_queries):
    for bracket in ("all", "top1000", "top100"):
        with django_assert_max_num_queries(QUERY_LIMIT):
            response = client.get(f"/matchups?bracket={bracket}")
        assert response.status_code == 200
    html = client.get("/matchups").content.decode()
    assert 'aria-current="page">All<' in html
    row = matchup_matrix("all").rows[0]
    sure = next(c for c in row.cells if c.probability is not None and not c.mirror)
    unescaped = html.replace("&#x27;", "'").replace("&#39;", "'")
    estimate = sure.estimate
    low, high = estimate.interval
    title = (
        f"{row.character.name} vs {sure.opponent.name}: {100 * estimate.probability:.1f}% at "
        f"equal skill (95% interval {100 * low:.1f}%\u2013{100 * high:.1f}%); "
        f"{estimate.games} game{'s' if estimate.games != 1 else ''}, "
        f"{estimate.wins}\u2013{estimate.losses}, "
        f"{estimate.expected_wins:.1f} wins expected from ratings alone"
    )
    pattern = rf'class="num ([a-z0-9 -]+)" data-sort="[^"]+" title="{re.escape(title)}(; [^"]*)?"'
    found = re.search(pattern, unescaped)
    assert found
    if estimate.uncertain:
        assert found[1] == "heat-none uncertain" and found[2] == "; uncertain: too few games"
    else:
        # Coloured by the nearest tenth of the probability.
        assert abs(int(found[1].removeprefix("heat-")) - 10 * estimate.probability) <= 0.5
        assert found[2] is None
    assert "data-sortable" in html


def test_wide_intervals_are_greyed(client, league, settings):
    settings.MATCHUP_WIDE_INTERVAL = 0.0  # every cell with games is uncertain
    html = client.get("/matchups?bracket=top100").content.decode()
    cells = re.findall(r'<td class="num ([a-z0-9 -]+)" data-sort="[^"]+" title="([^"]*)"', html)
    played = [(css, title) for css, title in cells if "wins expected" in title]
    assert played
    assert all(css == "heat-none uncertain" for css, _ in played)
    assert all(title.endswith("uncertain: too few games") for _, title in played)


def test_unknown_bracket_is_400(client, db):
    assert client.get("/matchups?bracket=top5").status_code == 400
