"""The character matchup matrix: P(row beats column at equal skill) from fitted offsets."""

from __future__ import annotations

import html as html_module
import re

import pytest
from django.db.models import Sum
from django.utils.html import escape

from matches.models import CharacterMatchup
from matches.ratings.matchup_offset import Offset, OffsetEvidence
from matches.selectors.matchups import (
    MatchupCell,
    MatchupEstimate,
    MatchupRow,
    bracket_games,
    estimate_of_sums,
    matchup_matrix,
)
from matches.views.matchups import bracket_note
from players.formatting import HeatScale
from players.models import Character
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
    # Sure averages first, each group from the highest down.
    for unsure in (False, True):
        averages = [
            row.average
            for row in matrix.rows
            if row.average is not None and row.average_uncertain is unsure
        ]
        assert averages == sorted(averages, reverse=True)
    sureness = [row.average_uncertain for row in matrix.rows if row.average is not None]
    assert sureness == sorted(sureness)
    assert matrix.columns == [row.character for row in matrix.rows]


def cells_of(html: str) -> list[tuple[str, str]]:
    """(classes, title) of each matrix cell, the title unescaped."""
    unescaped = html.replace("&#x27;", "'").replace("&#39;", "'")
    return re.findall(r'<td class="num ([a-z0-9 -]+)" data-sort="[^"]+" title="([^"]*)"', unescaped)


def test_page_shows_colours_counts_and_brackets(client, league, django_assert_max_num_queries):
    for bracket in ("all", "top1000", "top100"):
        with django_assert_max_num_queries(QUERY_LIMIT):
            response = client.get(f"/matchups?bracket={bracket}")
        assert response.status_code == 200
    html = client.get("/matchups").content.decode()
    games = bracket_games()
    stored = CharacterMatchup.objects.filter(bracket="all").aggregate(n=Sum("wins") + Sum("losses"))
    assert games["all"] == stored["n"] // 2 > 0
    assert f'aria-current="page">All <span class="muted">{games["all"]:,} games</span><' in html
    assert (
        f"All: every counted game between two different characters, {games['all']:,} games." in html
    )
    matrix = matchup_matrix("all")
    row = matrix.rows[0]
    sure = next(c for c in row.cells if c.probability is not None and not c.mirror)
    estimate = sure.estimate
    low, high = estimate.interval
    title = (
        f"{row.character.name} vs {sure.opponent.name}\n"
        f"{100 * estimate.probability:.1f}% at equal skill\n"
        f"95% interval {100 * low:.1f}%\u2013{100 * high:.1f}%\n"
        f"{estimate.games} game{'s' if estimate.games != 1 else ''}, "
        f"{estimate.wins}\u2013{estimate.losses}\n"
        f"{estimate.expected_wins:.1f} wins expected from ratings alone"
    )
    css = dict((t, c) for c, t in cells_of(html) if t.startswith(title))
    assert len(css) == 1
    ((found_title, found_css),) = css.items()
    scale = HeatScale.spanning(
        c.probability
        for r in matrix.rows
        for c in r.cells
        if c.probability is not None and not c.mirror and not c.estimate.uncertain
    )
    if estimate.uncertain:
        assert found_css == "heat-none uncertain"
        assert found_title.endswith("Uncertain: the interval is wider than ±10 percentage points")
    else:
        assert found_css == scale.css(estimate.probability) and found_title == title
    # The legend spans the chances the certain cells show, and says what grey means.
    low_mark, high_mark = 50 - scale.reach, 50 + scale.reach
    assert f'<span class="heat-lo-10">{low_mark}</span>' in html
    assert f'<span class="heat-hi-10">{high_mark}</span>' in html
    assert "its 95% interval is wider than ±10 percentage points at even odds" in html
    assert "data-sortable" in html


def test_colours_span_the_chances_shown():
    scale = HeatScale.spanning([0.32, 0.5, 0.68, 0.541])
    assert scale.reach == 18
    assert scale.css(0.5) == scale.css(0.504) == "heat-even"
    assert scale.css(0.54) == "heat-hi-3"  # 4 of 18 points: coloured, never white
    assert scale.css(0.46) == "heat-lo-3"
    assert scale.css(0.51) == "heat-hi-1"
    assert scale.css(0.68) == scale.css(0.9) == "heat-hi-10"
    assert scale.legend() == [
        ("heat-lo-10", "32"), ("heat-lo-5", "41"), ("heat-even", "50"),
        ("heat-hi-5", "59"), ("heat-hi-10", "68"),
    ]  # fmt: skip
    assert HeatScale.spanning([]).css(0.52) == "heat-hi-10"


def test_a_bracket_says_what_it_holds():
    games = {"all": 10_000, "top1000": 9_500, "top100": 1_234}
    assert bracket_note("top100", games) == (
        "Top 100: games where both players are now in the top 100 of their character's "
        "rankings, 1,234 games (12% of all)."
    )
    assert bracket_note("top1000", games).endswith(
        "9,500 games (95% of all): nearly every game, so it differs little from All."
    )
    assert bracket_note("top100", {**games, "top100": 0}).endswith("0 games (0% of all).")


def test_one_character_against_everyone(client, league):
    matrix = matchup_matrix("all")
    row = matrix.rows[len(matrix.rows) // 2]
    code = row.character.code
    response = client.get(f"/matchups?character={code}")
    assert response.status_code == 200
    html = response.content.decode()
    assert f"<h1>{row.character.name} against everyone</h1>" in html
    body = html[html.index('<table class="versus"') : html.index("</table>")]
    names = [
        html_module.unescape(name)
        for name in re.findall(r'<th scope="row"><a href="[^"]+">([^<]+)</a></th>', body)
    ]
    assert names == [column.name for column in matrix.columns]
    played = next(c for c in row.cells if c.estimate.games >= 2 and not c.mirror)
    estimate = played.estimate
    low, high = estimate.interval
    line = re.search(
        rf'<a href="[^"]+">{re.escape(escape(played.opponent.name))}</a></th>(.*?)</tr>',
        body,
        re.S,
    )[1]
    texts = re.findall(r">([^<]*)</td>", line)
    assert texts == [
        f"{100 * estimate.probability:.0f}%",
        f"{100 * low:.0f}\u2013{100 * high:.0f}",
        f"{estimate.games:,}",
        f"{estimate.wins:,}\u2013{estimate.losses:,}",
        f"{estimate.expected_wins:.1f}",
    ]
    # The brackets keep the character; an unknown one is 404.
    assert f'href="?bracket=top100&amp;character={code}"' in html
    assert client.get("/matchups?character=XX").status_code == 400  # an invalid query value


def test_wide_intervals_are_greyed(client, league, settings):
    settings.MATCHUP_WIDE_INTERVAL = 0.0  # every cell with games is uncertain
    html = client.get("/matchups?bracket=top100").content.decode()
    played = [(css, title) for css, title in cells_of(html) if "wins expected" in title]
    assert played
    assert all(css == "heat-none uncertain" for css, _ in played)
    assert all(title.endswith("wider than ±0 percentage points") for _, title in played)


def test_179_even_games_are_not_uncertain():
    """The default threshold, about ±10 percentage points at even odds, greys a matchup
    of fewer than about 80 games, not one of 179 (±7 points)."""

    def even(games: int) -> MatchupEstimate:
        # Between players of unequal ratings p(1 - p) averages a little below 1/4.
        return estimate_of_sums(OffsetEvidence(games, games // 2, games / 2, 0.22 * games))

    assert not even(179).uncertain and even(60).uncertain
    assert 0.07 < even(179).interval[1] - 0.5 < 0.08


def test_unknown_bracket_is_400(client, db):
    assert client.get("/matchups?bracket=top5").status_code == 400


def test_an_average_of_few_games_is_uncertain(settings):
    """Two cells of a handful of games each (a character out for a day) make an average
    as unsure as a cell; the same cells known from many games make a sure one."""
    settings.MATCHUP_WIDE_INTERVAL = 70.0
    character, first, second = (Character(id=n, code=f"C{n}") for n in (1, 2, 3))

    def row(standard_error: float) -> MatchupRow:
        def cell(opponent: Character, offset: float) -> MatchupCell:
            return MatchupCell(
                opponent, MatchupEstimate.of(Offset(offset, standard_error), 5, 3, 4.0)
            )

        mirror = MatchupCell(
            character, MatchupEstimate.of(Offset(0.0, 0.0), 0, 0, 0.0), mirror=True
        )
        return MatchupRow(character, [mirror, cell(first, 40.0), cell(second, 70.0)])

    # Half-widths 1.96 * se: at se 60 each cell is uncertain (118 points) and their mean
    # (118 * sqrt(2) / 2 = 83) too; at se 30 the cells (59) and the mean (42) are sure.
    assert row(60.0).average_uncertain
    assert not row(30.0).average_uncertain
    assert row(60.0).average == pytest.approx(row(30.0).average)
