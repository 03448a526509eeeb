"""How numbers read on the site, shared by the templates (players.templatetags.ratings)
and the API (players.api.fields): plain functions, no Django."""

from __future__ import annotations


def rating_text(value: float | None, deviation: float | None) -> str:
    """'1623 ±120': the value and two deviations (95%), rounded; '' without a value."""
    if value is None or deviation is None:
        return ""
    return f"{value:.0f} ±{2 * deviation:.0f}"


def offset_text(value: float | None, half_width: float | None) -> str:
    """A matchup offset in rating points with its 95% half-width: '+35 ±40', or with a
    true minus sign '-12 ±60'."""
    if value is None or half_width is None:
        return ""
    text = f"{abs(value):.0f}"
    sign = "" if text == "0" else "+" if value > 0 else "\u2212"
    return f"{sign}{text} ±{half_width:.0f}"


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
