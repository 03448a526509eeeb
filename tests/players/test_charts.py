"""Server-side SVG charts: scales, escaping, accessibility."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from matches.charts import MAX_DOTS, Bar, bar_chart, nice_ticks, rating_chart


@dataclass
class Point:
    at: datetime
    value: float
    deviation: float


START = datetime(2026, 11, 1, tzinfo=UTC)


def test_nice_ticks_are_round_and_cover_the_range():
    assert nice_ticks(1213, 1788) == [1300, 1400, 1500, 1600, 1700]
    assert nice_ticks(0, 7) == [0, 2, 4, 6]
    assert nice_ticks(0, 1000) == [0, 200, 400, 600, 800, 1000]
    assert nice_ticks(5, 5) == [5.0, 5.2, 5.4, 5.6, 5.8, 6.0]


def test_rating_chart_draws_line_band_and_tooltips():
    points = [Point(START + timedelta(hours=i), 1500 + 10 * i, 100 - i) for i in range(10)]
    svg = rating_chart("history", points, title="Rating <history>")
    assert svg.startswith('<svg class="chart"') and svg.endswith("</svg>")
    assert 'role="img" aria-labelledby="history-title history-desc"' in svg
    assert '<title id="history-title">Rating &lt;history&gt;</title>' in svg
    assert svg.count("<circle") == 10
    assert "<title>2026-11-01 09:00 UTC: 1590 ±182</title>" in svg
    assert svg.count("<polyline") == 1 and svg.count("<polygon") == 1
    assert "From 1500 ±200 on 2026-11-01 to 1590 ±182 on 2026-11-01, 10 points." in svg


def test_rating_chart_drops_dots_for_long_histories_and_handles_empty_ranges():
    points = [Point(START + timedelta(hours=i), 1500, 60) for i in range(MAX_DOTS + 1)]
    assert "<circle" not in rating_chart("h", points, title="t")
    assert "No games in this range." in rating_chart("h", [], title="t")
    single = rating_chart("h", [Point(START, 1500, 350)], title="t")
    assert single.count("<circle") == 1


def test_bar_chart_escapes_labels_and_thins_them():
    bars = [Bar(f"<{i}>", i, f"bar <{i}>") for i in range(1, 41)]
    svg = bar_chart("bars", bars, title="Bars", labels=8)
    assert svg.count('class="chart-bar"') == 40
    assert svg.count('class="chart-label"') - svg.count('text-anchor="end"') == 8
    assert "<title>bar &lt;40&gt;</title>" in svg
    assert "<4>" not in svg
