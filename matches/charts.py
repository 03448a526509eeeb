"""Charts drawn on the server as inline SVG, so pages need no JavaScript to show them.

Colours come from CSS classes (light and dark themes); every chart has a title and
a description for screen readers, and every mark a <title> tooltip. All text that
goes into the markup is escaped here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Protocol

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from players.formatting import count_text, rating_text

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 66, 24, 14, 44
# The band around the rating is drawn at most this far out, so that a new player's
# ±700 does not flatten the rest of the chart (it is clipped, not rescaled).
MAX_BAND_SHOWN = 250.0
# Above this many points the line has no dots (each dot carries a tooltip).
MAX_DOTS = 160
# A chart 1280 px wide at most shows no more than this many distinct points; longer
# histories are thinned to it on the server (see `downsample`).
MAX_CHART_POINTS = 300
# A lone game's band is a bar this wide (a band over no time would be a bare line).
LONE_BAND_WIDTH = 14
# Tick labels closer than this to the right edge are right-aligned, so none is cut off.
EDGE_LABEL = 36
# A bar with any count is drawn at least this tall: beside a tallest bar thousands of
# times its size, the one rating at the top of a distribution would vanish (its tooltip
# gives the count).
MIN_BAR_HEIGHT = 2.0


class RatingPoint(Protocol):
    at: datetime
    value: float
    deviation: float


@dataclass(frozen=True)
class ChartPoint:
    """A rating at a moment, for a mark that is not one of the line's points (a peak)."""

    at: datetime
    value: float
    deviation: float


@dataclass(frozen=True)
class Bar:
    label: str  # under the axis, for some of the bars
    value: float
    tooltip: str


def _fmt(number: float) -> str:
    return f"{number:.1f}".rstrip("0").rstrip(".")


def _tick_text(number: float) -> str:
    """A gridline's label, 12000 as "12k" and 1500000 as "1.5M": at a phone's label size
    five digits would run past the axis margin and lose their first ones."""
    if abs(number) >= 1_000_000:
        return _fmt(number / 1_000_000) + "M"
    if abs(number) >= 10_000:
        return _fmt(number / 1_000) + "k"
    return _fmt(number)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart, about `count` steps) from
    the last one at or below `low` to the first one at or above `high`, so that the
    gridlines enclose every value."""
    if high <= low:
        high = low + 1.0
    magnitude = 10 ** math.floor(math.log10((high - low) / count))
    step = min(
        (m * magnitude for m in (1, 2, 5, 10)), key=lambda step: abs((high - low) / step - count)
    )
    first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
    return [round(i * step, 10) for i in range(first, last + 1)]


@dataclass(frozen=True)
class TimeTicks:
    moments: list[datetime]
    label_format: str  # strftime; times of day only when the range is inside one day


_HOUR_STEPS = (1, 2, 3, 4, 6, 12)
_DAY_STEPS = (1, 2, 3, 7, 14)  # 7 and 14 start on Mondays
_MONTH_STEPS = (1, 2, 3, 6, 12)


def _closest(steps: Sequence[int], units: float, count: int) -> int:
    return min(steps, key=lambda step: abs(units / step - count))


def time_ticks(start: datetime, end: datetime, count: int = 5) -> TimeTicks:
    """About `count` evenly spaced round moments in start..end: whole hours when the
    range is inside one day, else midnights (UTC) every 1, 2, 3, 7 or 14 days, else
    the firsts of every 1, 2, 3, 6 or 12 months."""
    span = end - start
    if span <= timedelta(days=1):
        step = timedelta(hours=_closest(_HOUR_STEPS, span / timedelta(hours=1), count))
        moment = start.replace(minute=0, second=0, microsecond=0)
        fmt = "%H:%M"
    elif span <= timedelta(days=100):
        days = _closest(_DAY_STEPS, span / timedelta(days=1), count)
        step = timedelta(days=days)
        moment = datetime.combine(start.date(), time(), start.tzinfo)
        # Every tick a whole number of steps from a Monday, whichever the range's start.
        moment -= timedelta(days=moment.toordinal() % days if days < 7 else moment.weekday())
        fmt = "%b %d"
    else:
        months = _closest(_MONTH_STEPS, span / timedelta(days=30.44), count)
        index = (start.year * 12 + start.month - 1) // months * months
        moments = []
        while True:
            moment = datetime(index // 12, index % 12 + 1, 1, tzinfo=start.tzinfo)
            if moment > end:
                break
            if moment >= start:
                moments.append(moment)
            index += months
        return TimeTicks(moments, "%b %Y" if months < 12 else "%Y")
    moments = []
    while moment <= end:
        if moment >= start:
            moments.append(moment)
        moment += step
    return TimeTicks(moments, fmt)


def _time_label(moment: datetime, label_format: str) -> str:
    return moment.strftime(label_format).replace(" 0", " ")


def _svg(
    chart_id: str,
    title: str,
    description: str,
    body: list[str],
    *,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> SafeString:
    # Every piece of text is escaped where it is built.
    return mark_safe(
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{chart_id}-title {chart_id}-desc" id="{chart_id}">'
        f'<title id="{chart_id}-title">{escape(title)}</title>'
        f'<desc id="{chart_id}-desc">{escape(description)}</desc>' + "".join(body) + "</svg>"
    )


def _empty(chart_id: str, title: str, message: str) -> SafeString:
    """The frame of a chart with nothing to draw, saying so where the marks would be."""
    return _svg(
        chart_id,
        title,
        message,
        [
            f'<text class="chart-label" x="{WIDTH / 2:.0f}" y="{HEIGHT / 2:.0f}" '
            f'text-anchor="middle">{escape(message)}</text>'
        ],
    )


def _y_axis(ticks: list[float], y: Callable[[float], float]) -> list[str]:
    parts = []
    for tick in ticks:
        py = y(tick)
        parts.append(
            f'<line class="chart-grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{py:.1f}" '
            f'y2="{py:.1f}"/><text class="chart-label" x="{LEFT - 6}" y="{py + 5:.1f}" '
            f'text-anchor="end">{_tick_text(tick)}</text>'
        )
    return parts


def _x_label(px: float, text: str, index: int) -> str:
    """A label under the x axis; every other one (index odd) is left out on phones."""
    css = "chart-label chart-label-odd" if index % 2 else "chart-label"
    anchor = "middle"
    if px > WIDTH - EDGE_LABEL:
        px, anchor = WIDTH - 2, "end"
    return (
        f'<text class="{css}" x="{px:.1f}" y="{HEIGHT - BOTTOM + 28}" '
        f'text-anchor="{anchor}">{escape(text)}</text>'
    )


def downsample(points: Sequence[RatingPoint], limit: int = MAX_CHART_POINTS) -> list[RatingPoint]:
    """At most `limit` of `points` (oldest first), in order: the first and the last, and
    in each of about limit / 4 runs of consecutive points its first, lowest, highest and
    last one, so that no peak or trough is lost however long the history."""
    if len(points) <= limit:
        return list(points)
    runs = max(1, (limit - 2) // 4)
    size = math.ceil(len(points) / runs)
    kept: set[int] = {0, len(points) - 1}
    for start in range(0, len(points), size):
        run = range(start, min(start + size, len(points)))
        kept.update(
            (
                run[0],
                run[-1],
                min(run, key=lambda i: points[i].value),
                max(run, key=lambda i: points[i].value),
            )
        )
    return [points[i] for i in sorted(kept)]


def _minute_text(moment: datetime) -> str:
    """`moment` as "%Y-%m-%d %H:%M" writes it (years 1000 on), at a third of strftime's
    cost: a chart titles each of its hundred-odd dots so."""
    return moment.isoformat(" ", "minutes")[:16]


def chart_span(
    points: Sequence[RatingPoint], *, start: datetime | None, end: datetime | None
) -> tuple[datetime, datetime]:
    """The moments a rating chart of `points` (not empty, oldest first) runs between:
    start..end (by default the first and last point) widened to hold every point and to
    an hour at least."""
    first, last = points[0].at, points[-1].at
    start = min(start or first, first)
    end = max(end or last, last)
    if end - start < timedelta(hours=1):
        start, end = start - timedelta(minutes=30), end + timedelta(minutes=30)
    # A point on the left edge would show half its dot and band: leave it a margin.
    return min(start, first - (end - start) / 40), end


def peak_ringed(
    points: Sequence[RatingPoint],
    peak: RatingPoint | None,
    *,
    start: datetime | None = None,
    end: datetime | None = None,
) -> bool:
    """Whether `rating_chart` with these arguments rings `peak`: it draws a line and the
    peak falls inside its time range (a caption must not point at a ring not drawn)."""
    if not points or peak is None:
        return False
    start, end = chart_span(points, start=start, end=end)
    return start <= peak.at <= end


def rating_chart(
    chart_id: str,
    points: Sequence[RatingPoint],
    *,
    title: str,
    start: datetime | None = None,
    end: datetime | None = None,
    peak: RatingPoint | None = None,
) -> SafeString:
    """A rating over start..end (by default its first to its last point): the line, dots
    with tooltips, and the ± band (2 deviations) clipped to the plot; from the last point
    to `end` a dashed line carries the rating on. Points at a single moment (one game)
    show the last of them as a dot on a bar of its band. `peak`, the record the profile's
    card shows, is ringed where it falls inside the chart's time range."""
    if not points:
        return _empty(chart_id, title, "No games in this range.")
    if points[0].at == points[-1].at:
        points = points[-1:]  # the rating before a lone game would sit on the same spot
    count = len(points)
    points = downsample(points)
    peak_shown = peak_ringed(points, peak, start=start, end=end)
    start, end = chart_span(points, start=start, end=end)
    span = end - start
    marked = [*points, peak] if peak_shown else points
    low = min(p.value - min(2 * p.deviation, MAX_BAND_SHOWN) for p in marked)
    high = max(p.value + min(2 * p.deviation, MAX_BAND_SHOWN) for p in marked)
    ticks = nice_ticks(low, high)
    low, high = ticks[0], ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(moment: datetime) -> float:
        return LEFT + (moment - start) / span * plot_w

    def y(value: float) -> float:
        return TOP + (high - value) / (high - low) * plot_h

    body = [
        f'<clipPath id="{chart_id}-clip"><rect x="{LEFT}" y="{TOP}" width="{plot_w}" '
        f'height="{plot_h}"/></clipPath>',
        *_y_axis(ticks, y),
        f'<g clip-path="url(#{chart_id}-clip)">',
    ]
    # Each point's place, as the texts the band, the line and the dots all draw it at.
    xs = [f"{x(p.at):.1f}" for p in points]
    ys = [f"{y(p.value):.1f}" for p in points]
    last = points[-1]
    if len(points) == 1:
        top, bottom = y(last.value + 2 * last.deviation), y(last.value - 2 * last.deviation)
        body.append(
            f'<rect class="chart-band" x="{x(last.at) - LONE_BAND_WIDTH / 2:.1f}" '
            f'y="{top:.1f}" width="{LONE_BAND_WIDTH}" height="{bottom - top:.1f}"/>'
        )
    else:
        upper = " ".join(
            f"{px},{y(p.value + 2 * p.deviation):.1f}" for px, p in zip(xs, points, strict=True)
        )
        lower = " ".join(
            f"{px},{y(p.value - 2 * p.deviation):.1f}"
            for px, p in zip(reversed(xs), reversed(points), strict=True)
        )
        line = " ".join(f"{px},{py}" for px, py in zip(xs, ys, strict=True))
        body += [
            f'<polygon class="chart-band" points="{upper} {lower}"/>',
            f'<polyline class="chart-line" points="{line}"/>',
        ]
    if end > last.at:
        body.append(
            f'<line class="chart-idle" x1="{x(last.at):.1f}" x2="{x(end):.1f}" '
            f'y1="{y(last.value):.1f}" y2="{y(last.value):.1f}"><title>No games since '
            f"{last.at:%Y-%m-%d %H:%M} UTC</title></line>"
        )
    if len(points) <= MAX_DOTS:
        body += [
            f'<circle class="chart-dot" cx="{px}" cy="{py}" r="3">'
            f"<title>{_minute_text(p.at)} UTC: {rating_text(p.value, p.deviation)}</title>"
            "</circle>"
            for px, py, p in zip(xs, ys, points, strict=True)
        ]
    if peak_shown:
        body.append(
            f'<circle class="chart-peak" cx="{x(peak.at):.1f}" cy="{y(peak.value):.1f}" r="7">'
            f"<title>Peak, {_minute_text(peak.at)} UTC: "
            f"{rating_text(peak.value, peak.deviation)}</title></circle>"
        )
    body.append("</g>")
    axis = time_ticks(start, end)
    body += [
        _x_label(x(m), _time_label(m, axis.label_format), i) for i, m in enumerate(axis.moments)
    ]
    first = points[0]
    description = (
        f"From {rating_text(first.value, first.deviation)} on {first.at:%Y-%m-%d} "
        f"to {rating_text(last.value, last.deviation)} on {last.at:%Y-%m-%d}, "
        f"{count_text(count, 'point')}, up to {end:%Y-%m-%d}"
        + (
            f"; peak {rating_text(peak.value, peak.deviation)} on {peak.at:%Y-%m-%d}, ringed."
            if peak_shown
            else "."
        )
    )
    return _svg(chart_id, title, description, body)


def bar_chart(chart_id: str, bars: Sequence[Bar], *, title: str, labels: int = 8) -> SafeString:
    """Bars from zero under a gridline at or above the tallest, with about `labels` of
    their labels (evenly spaced: every n-th bar) under the axis."""
    if not bars:
        return _empty(chart_id, title, "No data yet.")
    ticks = nice_ticks(0.0, max(bar.value for bar in bars) or 1.0)
    high = ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / len(bars)
    gap = min(slot * 0.15, 4.0)

    def y(value: float) -> float:
        return TOP + (high - value) / high * plot_h

    body = _y_axis(ticks, y)
    every = max(1, math.ceil(len(bars) / labels))
    for i, bar in enumerate(bars):
        left = LEFT + i * slot
        height = y(0) - y(bar.value)
        if bar.value > 0:
            height = max(height, MIN_BAR_HEIGHT)
        body.append(
            f'<rect class="chart-bar" x="{left + gap / 2:.1f}" y="{y(0) - height:.1f}" '
            f'width="{max(slot - gap, 1.0):.1f}" height="{height:.1f}">'
            f"<title>{escape(bar.tooltip)}</title></rect>"
        )
        if i % every == 0:
            body.append(_x_label(left + slot / 2, bar.label, i // every))
    largest = max(bars, key=lambda bar: bar.value)
    description = f"{len(bars)} bars; the largest is {largest.tooltip}."
    return _svg(chart_id, title, description, body)


# The calibration chart is square-ish: equal scales on both axes keep the diagonal at 45°.
CALIBRATION_WIDTH, CALIBRATION_HEIGHT = 480, 460
CALIBRATION_LEFT, CALIBRATION_BOTTOM, CALIBRATION_SERIES = 84, 76, 6


@dataclass(frozen=True)
class CalibrationPoint:
    predicted: float  # mean predicted probability in the bin, 0..1
    observed: float  # share of those games actually won, 0..1
    games: int


@dataclass(frozen=True)
class CalibrationSeries:
    name: str
    points: Sequence[CalibrationPoint]


def calibration_chart(
    chart_id: str, series: Sequence[CalibrationSeries], *, title: str
) -> SafeString:
    """Observed against predicted win rates, one line per series, over the dashed diagonal
    of perfect calibration. Series take the colour classes chart-series-0 … -5 in order
    (a legend beside the chart uses the same classes)."""
    width, height = CALIBRATION_WIDTH, CALIBRATION_HEIGHT
    plot_w = width - CALIBRATION_LEFT - RIGHT
    plot_h = height - TOP - CALIBRATION_BOTTOM
    drawn = [s for s in series if s.points]
    if not drawn:
        return _svg(chart_id, title, "No data yet.", [], width=width, height=height)

    def x(share: float) -> float:
        return CALIBRATION_LEFT + share * plot_w

    def y(share: float) -> float:
        return TOP + (1 - share) * plot_h

    ticks = [i / 5 for i in range(6)]
    body = [
        f'<line class="chart-grid" x1="{CALIBRATION_LEFT}" x2="{width - RIGHT}" '
        f'y1="{y(t):.1f}" y2="{y(t):.1f}"/>'
        f'<line class="chart-grid" x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{TOP}" '
        f'y2="{y(0):.1f}"/>'
        f'<text class="chart-label" x="{CALIBRATION_LEFT - 6}" y="{y(t) + 5:.1f}" '
        f'text-anchor="end">{100 * t:.0f}</text>'
        f'<text class="chart-label" x="{x(t):.1f}" y="{y(0) + 24:.1f}" '
        f'text-anchor="middle">{100 * t:.0f}</text>'
        for t in ticks
    ]
    body += [
        f'<text class="chart-label" x="{x(0.5):.1f}" y="{height - 8}" '
        'text-anchor="middle">Predicted chance to win (%)</text>',
        f'<text class="chart-label" x="0" y="0" text-anchor="middle" '
        f'transform="translate(22 {y(0.5):.1f}) rotate(-90)">Games won (%)</text>',
        f'<line class="chart-diagonal" x1="{x(0):.1f}" y1="{y(0):.1f}" '
        f'x2="{x(1):.1f}" y2="{y(1):.1f}"><title>Perfect calibration</title></line>',
    ]
    for index, one in reversed(list(enumerate(series))):  # the first series on top
        if not one.points:
            continue
        css = f"chart-series-{index % CALIBRATION_SERIES}"
        line = " ".join(f"{x(p.predicted):.1f},{y(p.observed):.1f}" for p in one.points)
        body.append(f'<g class="{css}"><polyline class="chart-series-line" points="{line}"/>')
        body += [
            f'<circle class="chart-series-dot" cx="{x(p.predicted):.1f}" '
            f'cy="{y(p.observed):.1f}" r="4"><title>{escape(one.name)}: predicted '
            f"{100 * p.predicted:.1f}%, won {100 * p.observed:.1f}% of "
            f"{count_text(p.games, 'game')}</title></circle>"
            for p in one.points
        ]
        body.append("</g>")
    names = ", ".join(s.name for s in drawn)
    description = (
        f"Share of games won against the predicted chance, in bins of predicted chance, "
        f"for {names}; the dashed diagonal is perfect calibration."
    )
    return _svg(chart_id, title, description, body, width=width, height=height)
