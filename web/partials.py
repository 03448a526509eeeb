"""Partials that repeat a row or a cell hundreds of times, rendered by the Jinja2 engine.

Django's engine spends about 10 µs per value placed on a small machine, which for a
hundred ranking rows or a 27 x 27 matchup matrix costs more than the page's queries;
Jinja2 compiles templates to Python and places them several times faster. The views
hand these partials plain texts; autoescape is on, so the output is safe to place. A
partial of a hundred rows may place the texts its view made of numbers unescaped, inside
`{% autoescape false %}`, with `|e` on every other text: escaping costs a row as much as
the rest of it.
"""

from __future__ import annotations

from typing import Any

from django.template import engines
from django.utils.safestring import SafeString, mark_safe


def render_partial(name: str, context: dict[str, Any]) -> SafeString:
    """`templates/jinja2/<name>` rendered with `context`, its texts escaped by Jinja2."""
    return mark_safe(engines["jinja2"].get_template(name).render(context))
