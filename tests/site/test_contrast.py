"""Every text the pages draw reaches WCAG AA contrast (4.5:1) in both colour schemes,
computed from static/css/site.css itself: its custom properties (the light ones, then the
dark scheme's over them) and the colours of the rules each pair of text and background is
drawn with. A translucent background (a matchup's colour, a faded badge) is laid over the
surface it sits on first."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest

CSS = (Path(__file__).resolve().parents[2] / "static" / "css" / "site.css").read_text()
AA = 4.5
HEAT_STEPS = 10

RGBA = tuple[float, float, float, float]


def _without_comments(css: str) -> str:
    return re.sub(r"/\*.*?\*/", "", css, flags=re.S)


def _declarations(body: str) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in body.split(";") if ":" in part)
    return {name.strip(): value.strip() for name, value in pairs}


def custom_properties(scheme: str) -> dict[str, str]:
    """The custom properties of :root in a scheme: the light ones, the dark ones over them."""
    css = _without_comments(CSS)
    light = re.search(r"^:root\s*\{([^}]*)\}", css, flags=re.M)
    properties = _declarations(light[1])
    if scheme == "dark":
        dark = re.search(r"prefers-color-scheme:\s*dark\)\s*\{\s*:root\s*\{([^}]*)\}", css)
        properties |= _declarations(dark[1])
    return properties


def rule(selector: str) -> dict[str, str]:
    """The declarations of every rule whose selector list holds `selector` exactly, the
    later ones over the earlier (as the cascade takes them, at equal specificity)."""
    declarations: dict[str, str] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", _without_comments(CSS)):
        if selector in (s.strip() for s in selectors.split(",")):
            declarations |= _declarations(body)
    assert declarations, f"site.css has no rule for {selector!r}"
    return declarations


def colour(value: str, properties: dict[str, str]) -> RGBA:
    """A CSS colour (hex, rgb(a), hsl(a), var()) as red, green, blue in 0-1 and alpha."""
    value = re.sub(r"var\((--[\w-]+)\)", lambda m: properties[m[1]], value).strip()
    if value.startswith("#"):
        digits = value[1:]
        if len(digits) == 3:
            digits = "".join(d * 2 for d in digits)
        return (*(int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)), 1.0)
    function, arguments = re.fullmatch(r"(\w+)\((.*)\)", value).groups()
    parts = [p.strip() for p in arguments.split(",")]
    alpha = float(parts[3]) if len(parts) > 3 else 1.0
    if function in ("rgb", "rgba"):
        return (*(float(p) / 255 for p in parts[:3]), alpha)
    assert function in ("hsl", "hsla"), value
    hue, saturation, lightness = (
        float(parts[0]),
        float(parts[1][:-1]) / 100,
        float(parts[2][:-1]) / 100,
    )
    a = saturation * min(lightness, 1 - lightness)

    def channel(n: int) -> float:
        k = (n + hue / 30) % 12
        return lightness - a * max(-1, min(k - 3, 9 - k, 1))

    return (channel(0), channel(8), channel(4), alpha)


def over(top: RGBA, bottom: RGBA) -> RGBA:
    """`top` laid over an opaque `bottom`."""
    alpha = top[3]
    return (*(alpha * t + (1 - alpha) * b for t, b in zip(top[:3], bottom[:3], strict=True)), 1.0)


def luminance(rgb: RGBA) -> float:
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(foreground: RGBA, background: RGBA) -> float:
    lighter, darker = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


class Pair(NamedTuple):
    """A text and what it is drawn on: (selector, property) each; `base` is the opaque
    background a translucent one lies on, `faded` the opacity of the text's element."""

    name: str
    text: tuple[str, str]
    background: tuple[str, str]
    base: tuple[str, str] = ("body", "background")
    faded: float = 1.0


PAGE = ("body", "background")
SURFACE = ("table", "background")  # cards, tables, the header, fieldsets share it
CURRENT_TAB = ".tabs a[aria-current]"
PAIRS = [
    Pair("body text", ("body", "color"), PAGE),
    Pair("text on a table or card", ("body", "color"), SURFACE),
    Pair("muted text", (".muted", "color"), PAGE),
    Pair("muted text on a table or card", (".muted", "color"), SURFACE),
    Pair("column headings", ("thead th", "color"), SURFACE),
    Pair("links", ("a", "color"), PAGE),
    Pair("links in tables", ("a", "color"), SURFACE),
    Pair("buttons", ("button", "color"), ("button", "background")),
    Pair("the current tab", (CURRENT_TAB, "color"), (CURRENT_TAB, "background")),
    Pair("a count in the current tab", (CURRENT_TAB, "color"), (CURRENT_TAB, "background"),
         faded=float(rule(f"{CURRENT_TAB} .muted")["opacity"])),
    Pair("supporter badge", (".badge", "color"), (".badge", "background")),
    Pair("a won game", (".games span", "color"), (".games .win", "background")),
    Pair("a lost game", (".games span", "color"), (".games .loss", "background")),
    Pair("a won game that did not count", (".games .win.uncounted", "color"), SURFACE),
    Pair("a lost game that did not count", (".games .loss.uncounted", "color"), SURFACE),
    Pair("rating up", (".up", "color"), SURFACE),
    Pair("rating down", (".down", "color"), SURFACE),
    Pair("form errors", (".errorlist", "color"), SURFACE),
    Pair("tier", (".tier", "color"), SURFACE),
    Pair("warning", ("body", "color"), (".warning", "background")),
    Pair("chart labels", (".chart-label", "fill"), SURFACE),
    Pair("an uncertain matchup", (".heat-none", "color"), SURFACE),
    Pair("a matchup's average", (".matrix .avg", "color"), SURFACE),
    Pair("matchup details", (".cell-details", "color"), (".cell-details", "background")),
    *(
        Pair(f"a matchup at {side} step {step}", (".matrix td", "color"),
             (f".heat-{side}-{step}", "background"), SURFACE)
        for side in ("lo", "hi")
        for step in range(1, HEAT_STEPS + 1)
    ),
    Pair("legend marks", (".legend-scale span", "color"), (".heat-hi-10", "background"), PAGE),
]  # fmt: skip


def ratio(pair: Pair, scheme: str) -> float:
    properties = custom_properties(scheme)

    def drawn(selector_property: tuple[str, str]) -> RGBA:
        selector, name = selector_property
        return colour(rule(selector)[name], properties)

    page = drawn(PAGE)
    base = over(drawn(pair.base), page)
    background = over(drawn(pair.background), base)
    text = drawn(pair.text)
    text = over((*text[:3], text[3] * pair.faded), background)
    return contrast(text, background)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_reaches_aa(scheme):
    ratios = {pair.name: round(ratio(pair, scheme), 2) for pair in PAIRS}
    assert {name: r for name, r in ratios.items() if r < AA} == {}


def test_the_ratios_are_those_of_known_colours():
    # Black on white is 21:1, and the WCAG example #767676 on white just passes.
    white, black, grey = (1.0, 1.0, 1.0, 1.0), (0.0, 0.0, 0.0, 1.0), colour("#767676", {})
    assert contrast(black, white) == pytest.approx(21.0)
    assert contrast(grey, white) == pytest.approx(4.54, abs=0.01)
    assert colour("hsl(0, 100%, 50%)", {}) == pytest.approx((1.0, 0.0, 0.0, 1.0))
    assert colour("hsla(var(--x), 0.5)", {"--x": "120, 100%, 25%"}) == pytest.approx(
        (0.0, 0.5, 0.0, 0.5)
    )
