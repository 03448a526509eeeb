"""Partials that repeat a row or a cell hundreds of times, rendered by the Jinja2 engine.

Django's engine spends about 10 µs per value placed on a small machine, which for a
hundred ranking rows or a 27 x 27 matchup matrix costs more than the page's queries;
Jinja2 compiles templates to Python and places them several times faster.

One contract for every partial: its view hands it named rows (a `typing.NamedTuple` per
partial, defined next to the view that builds it) of texts it made, and the partial
places their fields by name (`{{ row.name }}`). Autoescape is always on, so every text
is escaped, the ones made of numbers too (it costs little: markupsafe escapes in C), and
the engine's undefined is strict (site/settings.py), so a misspelt field raises instead of
rendering as nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.template import engines
from django.utils.safestring import SafeString, mark_safe


def render_partial(name: str, context: Mapping[str, object]) -> SafeString:
    """`templates/jinja2/<name>` rendered with `context` (named rows, lists of them, flags)."""
    # Marked safe for the Django template that places it: Jinja2 escaped every text it
    # placed, so escaping its output again would show the markup as text.
    return mark_safe(engines["jinja2"].get_template(name).render(context))
