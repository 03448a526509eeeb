"""The partials' contract (web.partials): named rows, every text escaped, a misspelt field
an error rather than an empty cell."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest
from django.conf import settings
from django.template import engines

from players.views.rankings import RankingRow
from web.partials import render_partial

ROW = RankingRow(
    rank="1",
    rank_sort="1",
    anchor="r-1-SO",
    url="/player/1/SO",
    name="<b>Sol</b>",
    supporter=False,
    platform="PC",
    character="Sol Badguy",
    code="SO",
    value="1800.0",
    rating="1800 ±50",
    tier="",
    wins="3",
    record="3\u20131",
)


def test_a_partial_escapes_the_texts_of_its_rows():
    html = render_partial("players/ranking_rows.html", {"rows": [ROW], "overall": True})
    assert "<bdi>&lt;b&gt;Sol&lt;/b&gt;</bdi>" in html


@pytest.mark.parametrize("source", ["{{ row.nmae }}", "{% if row.supporterr %}x{% endif %}"])
def test_a_misspelt_field_raises_instead_of_rendering_nothing(source: str):
    with pytest.raises(jinja2.UndefinedError, match="has no attribute"):
        engines["jinja2"].from_string(source).render({"row": ROW})


def test_a_missing_context_name_raises():
    with pytest.raises(jinja2.UndefinedError, match="'overall' is undefined"):
        render_partial("players/ranking_rows.html", {"rows": [ROW]})


# What would place a text unescaped, in a template or in the code that feeds one.
TEMPLATE_OPT_OUTS = re.compile(r"autoescape\s+(false|off)|\|\s*safe|Markup\(|mark_safe")
CODE_OPT_OUTS = re.compile(r"\bmark_safe\(|\bMarkup\(|\bSafeString\(|autoescape\"?\s*[:=]\s*False")
# Each of them deliberate: the output of the escaping Jinja2 engine, and charts drawn
# from numbers with each text escaped where it is built.
DELIBERATE = {"web/partials.py", "matches/charts.py"}


def test_nothing_turns_escaping_off():
    root = Path(settings.BASE_DIR)
    templates = [
        path.relative_to(root).as_posix()
        for path in (root / "templates").rglob("*.html")
        if TEMPLATE_OPT_OUTS.search(path.read_text())
    ]
    assert templates == []
    code = {
        path.relative_to(root).as_posix()
        for part in ("players", "matches", "web", "site")
        for path in (root / part).rglob("*.py")
        if CODE_OPT_OUTS.search(path.read_text())
    }
    assert code == DELIBERATE
