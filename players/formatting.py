"""How numbers read on the site, shared by the templates (players.templatetags.ratings)
and the API (players.api.fields): plain functions, no Django."""

from __future__ import annotations

import math
from datetime import UTC, datetime


def shown_value(value: float) -> int:
    """A rating value as the site shows it, rounded to a whole number (ties to even, as
    Python formats): what a label beside it, a tier, is decided on."""
    return round(value)


def uncertainty_text(deviation: float) -> str:
    """The shown ± (two deviations, 95%), rounded down: a rating is ranked below ±150, and
    a ranked ±149.8 shown as "±150" would read as contradicting that."""
    return f"±{math.floor(2 * deviation)}"


def rating_text(value: float | None, deviation: float | None) -> str:
    """'1623 ±120': the value rounded and its ± (uncertainty_text); '' without a value."""
    if value is None or deviation is None:
        return ""
    return f"{shown_value(value)} {uncertainty_text(deviation)}"


def offset_text(value: float | None, half_width: float | None) -> str:
    """A matchup offset in rating points with its 95% half-width: '+35 ±40', or with a
    true minus sign '-12 ±60'."""
    if value is None or half_width is None:
        return ""
    text = f"{abs(value):.0f}"
    sign = "" if text == "0" else "+" if value > 0 else "\u2212"
    return f"{sign}{text} ±{half_width:.0f}"


def count_number(count: int) -> str:
    """'1,234': a count as pages show it, with thousands separators (the API keeps numbers)."""
    return f"{count:,}"


def count_text(count: int, noun: str) -> str:
    """'1 game', '1,234 games': a count with its noun, singular for one."""
    return f"{count_number(count)} {noun}{'' if count == 1 else 's'}"


def record_text(wins: int, losses: int) -> str:
    """'1,204-987' (with an en dash): wins and losses with thousands separators."""
    return f"{count_number(wins)}\u2013{count_number(losses)}"


def signed_text(change: float | None, digits: int = 1) -> str:
    """A rating change with its sign, one decimal for games and sets alike: '+12.3',
    '-0.2' (with a true minus sign), '0.0' when it rounds to nothing."""
    if change is None:
        return ""
    text = f"{abs(change):.{digits}f}"
    if float(text) == 0:
        return text
    return ("+" if change > 0 else "\u2212") + text


def change_class(text: str) -> str:
    """The colour of a change as `signed_text` shows it: a change that reads as 0.0 is
    neither up nor down, whatever its sign before rounding."""
    return {"+": "up", "\u2212": "down"}.get(text[:1], "")


def percent_number(share: float | None, digits: int = 1) -> str:
    """0.5421 → '54.2' (a share as a percentage, without the sign)."""
    if share is None:
        return ""
    return f"{100 * share:.{digits}f}"


def percent(share: float | None, digits: int = 1) -> str:
    """0.5421 → '54.2%'."""
    return f"{percent_number(share, digits)}%" if share is not None else ""


def heat(probability: float | None) -> str:
    """The colour class of a win probability: heat-0 (0-5%) … heat-10 (95-100%)."""
    if probability is None:
        return "heat-none"
    return f"heat-{round(probability * 10)}"


def utc_iso(moment: datetime) -> str:
    """'2026-03-01T12:34:56Z': a moment for a <time datetime>, in UTC, which the page's
    script (static/js/local-time-1.0.js) shows in the reader's time zone."""
    return f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"


def utc_text(moment: datetime) -> str:
    """'2026-03-01 12:34 UTC': a moment's title, kept when the script shows it in local time."""
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
