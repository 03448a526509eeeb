"""Filters that format ratings the same way on every page."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from django import template
from django.utils.html import format_html

from players.formatting import (
    offset_text,
    percent,
    percent_number,
    rating_text,
    shown_name,
    signed_text,
    utc_iso,
    utc_text,
)
from players.models import Player

register = template.Library()

# `{{ r.value|rating:r.deviation }}` → '1623 ±120' (the ± is two deviations, 95%).
register.filter("rating", rating_text)
register.filter("percent_number", percent_number)
register.filter("percent", percent)
# `{{ e.offset.value|offset:e.half_width }}` → '+35 ±40' (a matchup, in rating points).
register.filter("offset", offset_text)
# `{{ change|signed:1 }}` → '+12.5', or with a true minus sign; '0'.
register.filter("signed", signed_text)
# `{{ player.name|shown_name }}`: a name without the invisible characters that could
# make it read as another (players.formatting.shown_name).
register.filter("shown_name", shown_name)


# What a <time> shows without script, in UTC (the site's zone), by the forms the local-time
# script knows (static/js/local-time-1.0.js).
_MOMENT_FORMS = {"day": "%Y-%m-%d", "datetime": "%Y-%m-%d %H:%M"}


@register.simple_tag
def moment(value: datetime, form: str = "datetime") -> str:
    """`{% moment stats.computed_at "day" %}`: a <time> the reader sees in their time zone,
    with the moment in UTC on hover."""
    return format_html(
        '<time datetime="{}" title="{}" data-local="{}">{}</time>',
        utc_iso(value),
        utc_text(value),
        form,
        f"{value.astimezone(UTC):{_MOMENT_FORMS[form]}}",
    )


@register.filter
def win_rate(record: Any) -> str:
    """Wins over games of anything with `wins` and `losses`, as a whole percent."""
    games = record.wins + record.losses
    return f"{100 * record.wins / games:.0f}%" if games else ""


@register.filter
def top_percent(share: float | None) -> str:
    """A percentile as players say it: 'top 4%', 'top 0.3%' (never 'top 0%')."""
    if share is None:
        return ""
    if share >= 10:
        return f"top {math.ceil(share)}%"
    return f"top {max(math.ceil(share * 10) / 10, 0.1):g}%"


@register.filter
def platform_name(code: str) -> str:
    return Player.Platform(code).label if code in Player.Platform.values else code


@register.filter
def floor_name(floor: int | None) -> str:
    if floor is None:
        return ""
    return "Celestial" if floor == 99 else f"Floor {floor}"


@register.filter
def get_item(mapping: dict[str, Any], key: str) -> Any:
    """`{{ shares|get_item:bracket.key }}`: a dictionary value by a computed key."""
    return mapping.get(key)
