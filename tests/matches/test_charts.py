"""Server-side SVG charts: scales, escaping, accessibility."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from matches.charts import (
    MAX_CHART_POINTS,
    MAX_DOTS,
    MIN_BAR_HEIGHT,
    Bar,
    CalibrationPoint,
    CalibrationSeries,
    bar_chart,
    calibration_chart,
    downsample,
    nice_ticks,
    peak_ringed,
    rating_chart,
    time_ticks,
)


@dataclass
class Point:
    at: datetime
    value: float
    deviation: float


START = datetime(2026, 11, 1, tzinfo=UTC)


def test_nice_ticks_are_round_and_enclose_the_range():
    assert nice_ticks(1213, 1788) == [1200, 1300, 1400, 1500, 1600, 1700, 1800]
    assert nice_ticks(0, 7) == [0, 2, 4, 6, 8]
    assert nice_ticks(0, 1000) == [0, 200, 400, 600, 800, 1000]
    assert nice_ticks(0, 11_792) == [0, 2000, 4000, 6000, 8000, 10_000, 12_000]
    assert nice_ticks(5, 5) == [5.0, 5.2, 5.4, 5.6, 5.8, 6.0]


def _bar_tops(svg: str) -> list[float]:
    return [float(top) for top in re.findall(r'class="chart-bar" x="[\d.]+" y="([\d.-]+)"', svg)]


def _gridlines(svg: str) -> list[float]:
    return [
        float(y) for y in re.findall(r'class="chart-grid" x1="\d+" x2="\d+" y1="([\d.]+)"', svg)
    ]


def test_no_bar_rises_above_the_top_gridline():
    bars = [Bar("d", games, f"{games} games") for games in (10_600, 11_792, 3_000)]
    svg = bar_chart("per-day", bars, title="Games per day")
    top_gridline = min(_gridlines(svg))
    assert len(_bar_tops(svg)) == 3
    assert min(_bar_tops(svg)) >= top_gridline
    assert ">12k</text>" in svg  # the gridline above 11,792 is labelled, short enough for phones


def test_gridline_labels_stay_within_four_characters():
    for top, label in ((6_000, "6000"), (120_000, "120k"), (2_500_000, "2.5M")):
        svg = bar_chart("d", [Bar("a", top, "")], title="D")
        labels = re.findall(r'text-anchor="end">([^<]+)</text>', svg)
        assert labels[-1] == label
        assert max(map(len, labels)) <= 4


def test_a_bar_of_any_count_shows_beside_one_thousands_of_times_taller():
    bars = [Bar("a", 6_000, "6000"), Bar("b", 1, "1"), Bar("c", 0, "0")]
    heights = [
        float(h)
        for h in re.findall(
            r'class="chart-bar"[^>]*height="([\d.]+)"', str(bar_chart("d", bars, title="D"))
        )
    ]
    assert heights[1] >= MIN_BAR_HEIGHT > heights[2] == 0.0
    assert heights[0] > 100 * heights[1]


def test_time_ticks_are_evenly_spaced_dates_with_times_only_inside_one_day():
    end = datetime(2026, 11, 23, 12, 40, tzinfo=UTC)
    month = time_ticks(end - timedelta(days=30), end)
    assert month.label_format == "%b %d"
    assert month.moments == [datetime(2026, 10, d, tzinfo=UTC) for d in (26,)] + [
        datetime(2026, 11, d, tzinfo=UTC) for d in (2, 9, 16, 23)
    ]  # Mondays, a week apart
    hours = time_ticks(end - timedelta(hours=5), end)
    assert hours.label_format == "%H:%M"
    assert [m.hour for m in hours.moments] == [8, 9, 10, 11, 12]
    days = time_ticks(end - timedelta(hours=30), end)
    assert days.label_format == "%b %d" and days.moments == [datetime(2026, 11, 23, tzinfo=UTC)]
    year = time_ticks(end - timedelta(days=400), end)
    assert year.moments == [datetime(2026, m, 1, tzinfo=UTC) for m in (1, 4, 7, 10)]
    for ticks in (month, hours, year):
        steps = {b - a for a, b in zip(ticks.moments, ticks.moments[1:], strict=False)}
        assert len(steps) == 1 or ticks is year  # months differ in length, by days


def test_rating_chart_range_ends_today_with_the_rating_carried_on():
    today = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
    points = [Point(START + timedelta(days=i), 1500 + 10 * i, 80) for i in range(5)]
    svg = rating_chart("h", points, title="t", start=today - timedelta(days=30), end=today)
    labels = re.findall(r'text-anchor="(?:middle|end)">([A-Z][a-z]{2} \d+)</text>', svg)
    assert labels == ["Oct 26", "Nov 2", "Nov 9", "Nov 16", "Nov 23"]
    # The dashed line from the last game runs to the right edge of the plot.
    assert '<line class="chart-idle" x1="' in svg
    assert re.search(r'class="chart-idle" x1="[\d.]+" x2="616.0"', svg)
    assert "up to 2026-11-23." in svg
    assert svg.count('<clipPath id="h-clip">') == 1
    assert '<g clip-path="url(#h-clip)"><polygon class="chart-band"' in svg


def test_rating_chart_draws_line_band_and_tooltips():
    points = [Point(START + timedelta(hours=i), 1500 + 10 * i, 100 - i) for i in range(10)]
    svg = rating_chart("history", points, title="Rating <history>")
    assert svg.startswith('<svg class="chart"') and svg.endswith("</svg>")
    assert 'role="img" aria-labelledby="history-title history-desc"' in svg
    assert '<title id="history-title">Rating &lt;history&gt;</title>' in svg
    assert svg.count("<circle") == 10
    assert "<title>2026-11-01 09:00 UTC: 1590 ±182</title>" in svg
    assert svg.count("<polyline") == 1 and svg.count("<polygon") == 1
    assert (
        "From 1500 ±200 on 2026-11-01 to 1590 ±182 on 2026-11-01, 10 points, up to 2026-11-01."
        in svg
    )


def test_rating_chart_drops_dots_for_long_histories_and_handles_empty_ranges():
    points = [Point(START + timedelta(hours=i), 1500, 60) for i in range(MAX_DOTS + 1)]
    assert "<circle" not in rating_chart("h", points, title="t")
    assert "No games in this range." in rating_chart("h", [], title="t")
    single = rating_chart("h", [Point(START, 1500, 350)], title="t")
    assert single.count("<circle") == 1


def test_one_game_history_is_a_point_on_its_band():
    # The rating before the lone game and after it, at the same moment.
    points = [Point(START, 1500, 350), Point(START, 1580, 300)]
    svg = rating_chart("h", points, title="t", end=START + timedelta(days=3))
    assert svg.count("<circle") == 1 and "1580 ±600" in svg
    assert "<polyline" not in svg and "<polygon" not in svg
    band = re.search(
        r'<rect class="chart-band" x="[\d.]+" y="([\d.-]+)" width="14" height="([\d.]+)"', svg
    )
    assert band and float(band[2]) > 100  # ±600 is most of the plot's height


def test_bar_chart_escapes_labels_and_thins_them():
    bars = [Bar(f"<{i}>", i, f"bar <{i}>") for i in range(1, 41)]
    svg = bar_chart("bars", bars, title="Bars", labels=8)
    assert svg.count('class="chart-bar"') == 40
    assert svg.count('y="264" text-anchor') == 8  # the x labels
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


def test_downsample_keeps_first_last_and_every_extreme():
    """A long history is thinned to what a chart can show without losing a peak: the
    first and last points, the overall low and high, and each run's extremes."""
    values = [1500 + 100 * ((i * 7919) % 13) / 13 for i in range(5000)]
    values[1234], values[4321] = 2400.0, 900.0  # one-game spike and dip
    points = [Point(START + timedelta(minutes=i), v, 60.0) for i, v in enumerate(values)]
    kept = downsample(points)
    assert len(kept) <= MAX_CHART_POINTS
    assert kept[0] is points[0] and kept[-1] is points[-1]
    assert points[1234] in kept and points[4321] in kept
    assert [p.at for p in kept] == sorted(p.at for p in kept)


def test_downsample_leaves_a_short_history_whole():
    points = [Point(START + timedelta(hours=i), 1500 + i, 80.0) for i in range(MAX_CHART_POINTS)]
    assert downsample(points) == points


def test_rating_chart_of_a_long_history_draws_a_bounded_line_and_counts_every_point():
    points = [Point(START + timedelta(minutes=i), 1500 + i % 50, 60.0) for i in range(3000)]
    svg = rating_chart("long", points, title="t")
    line = re.search(r'class="chart-line" points="([^"]*)"', svg).group(1)
    assert len(line.split()) <= MAX_CHART_POINTS
    assert "3,000 points" in svg


def test_dot_titles_write_moments_to_the_minute_as_strftime_does():
    moments = [
        datetime(2026, 1, 2, 3, 4, 59, 999999, tzinfo=UTC),
        datetime(2026, 12, 31, 23, 59, tzinfo=UTC),
        datetime(1999, 7, 8, 0, 0, 0, 1, tzinfo=UTC),
    ]
    points = [Point(at, 1500.0, 50.0) for at in moments]
    svg = rating_chart("c", points, title="t")
    for at in moments:
        assert f"<title>{at:%Y-%m-%d %H:%M} UTC: 1500 ±100</title>" in svg


def test_the_peak_is_ringed_with_the_text_the_card_shows_when_in_range():
    points = [Point(START + timedelta(hours=i), 1500 + 10 * i, 74.9) for i in range(10)]
    peak = Point(START + timedelta(hours=4), 1540.4, 74.9)
    svg = rating_chart("h", points, title="t", peak=peak)
    assert svg.count('class="chart-peak"') == 1
    # The card's text: ± rounded down (149.8 reads ±149, as on the card and the table).
    assert "<title>Peak, 2026-11-01 04:00 UTC: 1540 ±149</title>" in svg
    assert "<title>2026-11-01 04:00 UTC: 1540 ±149</title>" in svg
    assert "peak 1540 ±149 on 2026-11-01, ringed." in svg
    # A peak set before the chart's range is not drawn.
    earlier = Point(START - timedelta(days=40), 1600, 70)
    later = rating_chart("h", points, title="t", start=START - timedelta(days=1), peak=earlier)
    assert "chart-peak" not in later and "ringed" not in later


@given(
    hours=st.lists(st.integers(0, 24 * 60), max_size=8).map(sorted),
    peak_hour=st.integers(-24 * 40, 24 * 70),
    start_hour=st.none() | st.integers(-24 * 40, 24 * 60),
)
def test_peak_ringed_says_whether_the_chart_rings_the_peak(hours, peak_hour, start_hour):
    """The profile's caption says "The ring is the peak." by `peak_ringed`: never of a ring
    the chart does not draw (a peak before the range, or no line at all)."""
    points = [Point(START + timedelta(hours=h), 1500 + h % 7, 60) for h in hours]
    peak = Point(START + timedelta(hours=peak_hour), 1510, 60)
    start = None if start_hour is None else START + timedelta(hours=start_hour)
    end = START + timedelta(days=61)
    svg = rating_chart("h", points, title="t", start=start, end=end, peak=peak)
    ringed = peak_ringed(points, peak, start=start, end=end)
    assert ringed == ('class="chart-peak"' in svg)
    assert peak_ringed(points, None, start=start, end=end) is False
