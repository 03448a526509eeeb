"""Server-side SVG charts: scales, escaping, accessibility."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from matches.charts import (
    MAX_DOTS,
    Bar,
    CalibrationPoint,
    CalibrationSeries,
    bar_chart,
    calibration_chart,
    nice_ticks,
    rating_chart,
)


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


def test_calibration_chart_draws_a_line_per_series_over_the_diagonal():
    good = CalibrationSeries(
        "Good <one>", [CalibrationPoint(p / 10, p / 10, 100) for p in range(10)]
    )
    timid = CalibrationSeries(
        "Timid", [CalibrationPoint(0.45, 0.3, 1), CalibrationPoint(0.55, 0.7, 2)]
    )
    svg = calibration_chart("cal", [good, CalibrationSeries("Empty", []), timid], title="Cal")
    assert svg.startswith('<svg class="chart" viewBox="0 0 480 460"')
    assert svg.count('class="chart-diagonal"') == 1
    assert svg.count("<polyline") == 2 and svg.count("<circle") == 12
    # Colours follow the series' places, an empty series keeping its colour unused.
    assert '<g class="chart-series-0">' in svg and '<g class="chart-series-2">' in svg
    assert "chart-series-1" not in svg
    assert "<title>Good &lt;one&gt;: predicted 50.0%, won 50.0% of 100 games</title>" in svg
    assert "<title>Timid: predicted 45.0%, won 30.0% of 1 game</title>" in svg
    assert "for Good &lt;one&gt;, Timid;" in svg
    assert "<one>" not in svg
    assert "No data yet." in calibration_chart("cal", [CalibrationSeries("x", [])], title="t")
