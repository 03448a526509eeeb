"""Issue 27: the names players choose (current and past) are shown as text on every page
that shows them, never as markup, whichever engine places them (Django's templates or the
Jinja2 partials, web.partials).

Hostile players come in through ingestion like anyone else, play ranked games against
each other and two plain players, change their names half-way, and support the site.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta
from html.parser import HTMLParser
from urllib.parse import quote

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from matches.models import RejectedReplay
from matches.replays.validation import MAX_NAME_LENGTH
from players.formatting import shown_name
from players.models import Player, PlayerName, Rating
from tests.factories import replay
from tests.fixtures.league import rate_replays

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"
IMG = "\"'><img src=x onerror=alert(1)>"
RTL = "\u202egnp.exe evil"  # a right-to-left override, then text it turns around
LONGEST = (SCRIPT * 3)[:MAX_NAME_LENGTH]  # the longest name a replay may carry
TOO_LONG = (IMG * 7)[:200]  # refused at ingestion (MAX_NAME_LENGTH), shown nowhere

# Each hostile player's (past name, current name, character): every hostile name is
# someone's current name and someone's past name.
HOSTILE = {
    "100000000000000101": (IMG, SCRIPT, "SO"),
    "100000000000000102": (RTL, IMG, "KY"),
    "100000000000000103": (LONGEST, RTL, "SO"),
    "100000000000000104": (SCRIPT, LONGEST, "KY"),
}
PLAIN = {
    "100000000000000201": ("Plain A", "Plain A", "MA"),
    "100000000000000202": ("Plain B", "Plain B", "SO"),
}
PLAYERS = {**HOSTILE, **PLAIN}
H1, H2, H3, H4 = HOSTILE
P1 = next(iter(PLAIN))
GAMES = 240  # 80 a player, enough for a ranked (low) deviation

# The escaped forms: Django writes ' and " as &#x27; and &quot;, markupsafe (Jinja2) as
# &#39; and &#34;.
ESCAPED = {
    SCRIPT: re.escape("&lt;script&gt;alert(1)&lt;/script&gt;"),
    IMG: "&(quot|#34);&(#x27|#39);&gt;&lt;img src=x onerror=alert\\(1\\)&gt;",
    LONGEST: re.escape("&lt;script&gt;alert(1)&lt;/script&gt;" * 2 + "&lt;script&gt;alert("),
}


def hostile_league() -> None:
    """The six players' games, ten per 5 minutes up to a minute ago (so that ratings are
    still ranked and fair opponents active), and one replay with a name too long."""
    now = timezone.now()
    rng = random.Random(27)
    pairs = [(a, b) for a in PLAYERS for b in PLAYERS if a < b]
    replays = []
    for n in range(GAMES):
        a, b = pairs[n % len(pairs)]
        current = n >= GAMES // 2  # each plays the second half under their new name
        replays.append(
            replay(
                n,
                a,
                b,
                winner=rng.choice([1, 2]),
                characters=(PLAYERS[a][2], PLAYERS[b][2]),
                names=(PLAYERS[a][current], PLAYERS[b][current]),
                played_at=now - timedelta(seconds=30 * (GAMES - n) + 60),
            )
        )
    too_long = replay(
        GAMES, H1, P1, names=(TOO_LONG, "Plain A"), played_at=now - timedelta(minutes=3)
    )
    rate_replays([*replays, too_long])
    Player.objects.filter(id__in=HOSTILE).update(supporter=True)


@pytest.fixture
def hostile(db) -> None:
    hostile_league()
    names = {p.id: p.name for p in Player.objects.all()}
    assert names == {key: current for key, (_, current, _) in PLAYERS.items()}
    for key, (past, _, _) in HOSTILE.items():
        assert PlayerName.objects.filter(player_id=key, name=past).exists()
    ranked = Rating.objects.filter(deviation__lt=settings.RATING_LOW_DEVIATION)
    assert set(ranked.values_list("player_id", flat=True)) == set(PLAYERS)
    assert RejectedReplay.objects.filter(reason__contains="name longer than").count() == 1


def profile(player: str) -> str:
    return f"/player/{player}/{PLAYERS[player][2]}"


ALL_CURRENT = {SCRIPT, IMG, RTL, LONGEST}

# Every page that shows players, and the hostile names it must show.
PAGES = {
    "/": ALL_CURRENT,
    "/?per=player": ALL_CURRENT,
    "/?active=30": ALL_CURRENT,
    "/top/SO": {SCRIPT, RTL},
    "/top/KY": {IMG, LONGEST},
    # Current names with "alert", and the past ones (H3 was LONGEST).
    "/search?name=alert": ALL_CURRENT,
    "/search?name=evil": {RTL, IMG},  # H3 is, H2 was
    profile(H1): ALL_CURRENT,  # their own, their past name (IMG), their opponents
    profile(H2): ALL_CURRENT,
    profile(H3): ALL_CURRENT,
    profile(H4): ALL_CURRENT,
    profile(P1): ALL_CURRENT,  # a plain player's history and fair opponents
    f"/calculator?a-player={H1}&a-character=SO&b-player={H2}&b-character=KY": {SCRIPT, IMG},
    # Two players by that name, one of them formerly: the page lists both to pick from.
    f"/calculator?a-name={quote(IMG)}&b-rating=1500&b-uncertainty=200": {SCRIPT, IMG},
    "/supporters": ALL_CURRENT,
    # A hostile query, echoed: players' input too.
    f"/search?name={quote(SCRIPT)}x": {SCRIPT},
    "/matchups": set(),
    "/stats": set(),
    "/lab": set(),
    "/about": set(),
}


class PageParts(HTMLParser):
    """The elements, attributes and texts of a page, and the texts holding an RTL
    override that are not isolated (neither inside <bdi> nor between FSI and PDI)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[str] = []
        self.bare_rtl: list[str] = []
        self.bdi_depth = 0
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self.bdi_depth += tag == "bdi"
        self.in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self.bdi_depth -= tag == "bdi"
        self.in_script = False

    def handle_data(self, data: str) -> None:
        assert not (self.in_script and data.strip()), f"inline script: {data!r}"
        self.texts.append(data)
        isolated = re.sub("\u2068[^\u2069]*\u2069", "", data)
        if "\u202e" in isolated and not self.bdi_depth:
            self.bare_rtl.append(data)


def parts(html: str) -> PageParts:
    parser = PageParts()
    parser.feed(html)
    parser.close()
    return parser


@pytest.mark.parametrize("url", PAGES)
def test_player_names_are_text_on_every_page(hostile, client: Client, url: str):
    response = client.get(url, follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    page = parts(html)

    # No markup from a name: the raw forms never appear, and parsed, the page has no
    # element or attribute a name brought.
    assert "<script>" not in html and "<img" not in html
    assert TOO_LONG[:MAX_NAME_LENGTH] not in html
    for tag, attrs in page.tags:
        assert tag != "img"
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        if tag == "script":
            assert attrs["src"].startswith(settings.STATIC_URL)
    assert page.bare_rtl == []

    # Each name the page shows is there as text, as shown (without its override: none is
    # left anywhere), escaped in the HTML.
    text = "".join(page.texts)
    assert "\u202e" not in html
    for name in PAGES[url]:
        assert shown_name(name) in text, f"{name!r} not shown"
        if name in ESCAPED:
            assert re.search(ESCAPED[name], html), f"{name!r} not escaped"


def test_the_api_answers_names_in_json_only(hostile, client: Client):
    """The API's display fields are JSON strings, never HTML: it has no HTML renderer
    (not even for a browser asking for HTML), and browsers may not sniff it for one."""
    for url in (f"/api/v1/players/?name={quote('alert')}", f"/api/v1/players/{H1}/"):
        response = client.get(url, HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
        assert response["X-Content-Type-Options"] == "nosniff"
        assert SCRIPT in response.content.decode("unicode_escape")
    player = client.get(f"/api/v1/players/{H1}/").json()
    assert player["name"] == SCRIPT
    assert {n["name"] for n in player["past_names"]} == {IMG}
