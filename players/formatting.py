"""How numbers read on the site, shared by the templates (players.templatetags.ratings)
and the API (players.api.fields): plain functions, no Django."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime


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


HEAT_STEPS = 10


def _shown_points(probability: float) -> int:
    """Percentage points from 50 of a chance as pages show it (percent_number, no decimals)."""
    return shown_points(percent_number(probability, 0))


def shown_points(shown: str) -> int:
    """Percentage points from 50 of a chance shown as `shown` ('54': 4), the whole percent."""
    return int(shown) - 50


@dataclass(frozen=True)
class HeatScale:
    """The colours of win chances, symmetric around 50%: the chance `reach` whole points
    from 50 (either way) takes the strongest colour, and every shown percentage other
    than 50 some colour, in HEAT_STEPS steps a side (classes `heat-lo-1` … `heat-lo-10`
    below 50, `heat-even`, `heat-hi-1` … `heat-hi-10` above; static/css/site.css)."""

    reach: int  # whole percentage points from 50

    @classmethod
    def spanning(cls, probabilities: Iterable[float]) -> HeatScale:
        """The scale whose strongest colours are the farthest chances from 50% shown."""
        return cls.spanning_points(_shown_points(p) for p in probabilities)

    @classmethod
    def spanning_points(cls, points: Iterable[int]) -> HeatScale:
        """`spanning`, from the chances' shown whole percentage points from 50."""
        return cls(max((abs(p) for p in points), default=0) or 1)

    def css(self, probability: float) -> str:
        """The colour class of a chance, by the whole percentage a page shows for it."""
        return self.css_of_points(_shown_points(probability))

    def css_of_points(self, points: int) -> str:
        """The colour class of a chance shown `points` whole percentage points from 50."""
        step = min(HEAT_STEPS, math.ceil(abs(points) * HEAT_STEPS / self.reach))
        if step == 0:
            return "heat-even"
        return f"heat-{'hi' if points > 0 else 'lo'}-{step}"

    def legend(self) -> list[tuple[str, str]]:
        """(colour class, percentage) for five marks from 50 - reach to 50 + reach."""
        half = self.reach // 2
        marks = [-self.reach, -half, 0, half, self.reach]
        return [(self.css(0.5 + mark / 100), str(50 + mark)) for mark in marks]


# Invisible formatting characters a name could use to display as something else: the
# bidirectional embeddings and overrides (U+202A-U+202E), isolates (U+2066-U+2069) and
# marks (U+200E, U+200F, U+061C), zero-width spaces and joiners (U+200B-U+200D), the word
# joiner and invisible operators (U+2060-U+2064) and the byte order mark (U+FEFF). The
# migration that indexes names by how they show (players/migrations/0019) holds a copy.
INVISIBLE_FORMATTING = "\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
_INVISIBLE = re.compile(f"[{INVISIBLE_FORMATTING}]")


_UNSEARCHED = re.compile(rf"[\s{INVISIBLE_FORMATTING}]")
# What a name's search key leaves out (players.models.NAME_KEY, as players_name_key of
# players/migrations/0019): whitespace (every character str.isspace takes, U+3000 the
# last), then the invisible formatting characters, spelt out.
NAME_KEY_DROPPED = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)


def search_text(query: str) -> str:
    """A search as search compares it (players_name_key, players/migrations/0019): without
    whitespace or invisible formatting characters, in one case (lower, where a character
    has a one-character lower case, so that the database's own folding still agrees).
    Every spelling of one search is one text: one cache entry, one query."""
    return "".join(
        lower if len(lower := char.lower()) == 1 else char for char in _UNSEARCHED.sub("", query)
    )


def shown_name(name: str) -> str:
    """A player's name as the site shows it (pages, the API, titles, suggestions): the
    stored name without its invisible formatting characters, so that no name reorders
    itself or its surroundings to read as another. The stored name is kept as it came."""
    return _INVISIBLE.sub("", name)


def player_summary(main: str, rating: str, platform: str, last_seen: date) -> str:
    """'Sol Badguy 1623 ±120 · PlayStation · last seen 2026-03-01': the main character and
    its rating, the platform and the day last seen, which tell players of one name apart
    wherever a name is offered (search, suggestions, the calculator's picks)."""
    parts = [
        f"{main} {rating}".strip() or "no rated games",
        platform,
        f"last seen {last_seen:%Y-%m-%d}",
    ]
    return " · ".join(part for part in parts if part)


def utc_iso(moment: datetime) -> str:
    """'2026-03-01T12:34:56Z': a moment for a <time datetime>, in UTC, which the page's
    script (static/js/local-time-1.0.js) shows in the reader's time zone."""
    return f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"


def utc_text(moment: datetime) -> str:
    """'2026-03-01 12:34 UTC': a moment's title, kept when the script shows it in local time."""
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
