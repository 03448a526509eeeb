"""Navigation a player expects, through real HTTP (issue 29, item 5): link previews,
compressed pages that still answer 304, 400 for query values no page takes, page numbers
and "find me" on the rankings."""

from __future__ import annotations

import gzip
import html
import re
from urllib.error import HTTPError
from urllib.parse import quote, urlsplit
from urllib.request import HTTPRedirectHandler, Request, build_opener, urlopen

import pytest

from players.models import Character
from tests.factories import PlayerFactory, RatingFactory


class NoRedirects(HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """Status, headers (lower-case names) and body as sent, redirects not followed."""
    request = Request(url, headers={name.replace("_", "-"): v for name, v in headers.items()})
    try:
        with build_opener(NoRedirects).open(request) as response:
            status, head, body = response.status, response.headers, response.read()
    except HTTPError as error:
        status, head, body = error.code, error.headers, error.read()
    return status, {name.lower(): value for name, value in head.items()}, body


def meta(page: str, key: str) -> str:
    """The content of the page's <meta property|name="key">, unescaped."""
    found = re.search(rf'<meta (?:property|name)="{key}" content="([^"]*)">', page)
    assert found, f"no {key} in the page"
    return html.unescape(found.group(1))


def test_a_profile_link_previews_name_character_and_rating(live_server):
    ky = Character.objects.get(code="KY")
    rating = RatingFactory(
        player=PlayerFactory(name='<Daisy & "Co">'), character=ky, value=1733.6, deviation=31.0
    )
    RatingFactory(value=1900.0, character=ky)  # ahead of Daisy in Ky's ranking
    url = f"{live_server.url}/player/{rating.player_id}/KY"

    status, _, body = fetch(url)
    page = body.decode()

    assert status == 200
    assert meta(page, "og:title") == '<Daisy & "Co"> · Ky'
    assert meta(page, "twitter:title") == '<Daisy & "Co"> · Ky'
    description = meta(page, "og:description")
    assert description == "Rating 1734 ±62 · #2 Ky, #2 overall · 10\u201310 (W\u2013L)"
    assert meta(page, "og:url") == url  # absolute, as link previews need
    assert "<Daisy" not in page.split("</head>")[0]  # escaped in the head


def test_rankings_and_matchups_have_previews_and_every_page_a_favicon(live_server):
    RatingFactory(player=PlayerFactory(name="Leader"), value=2000.0)

    _, _, rankings = fetch(f"{live_server.url}/")
    _, _, matchups = fetch(f"{live_server.url}/matchups")
    _, _, about = fetch(f"{live_server.url}/about")

    assert meta(rankings.decode(), "og:title") == "Rankings"
    assert meta(rankings.decode(), "og:description") == "#1 Leader 2000 ±120 (Sol)"
    assert meta(matchups.decode(), "og:title") == "Character matchups"
    icon = re.search(r'<link rel="icon" href="([^"]+)"', about.decode()).group(1)
    status, headers, _ = fetch(live_server.url + icon)
    assert status == 200 and headers["content-type"].startswith("image/svg+xml")


@pytest.mark.parametrize("path", ["/", "/player/{id}/SO", "/matchups"])
def test_pages_are_compressed_and_still_answer_304(live_server, path):
    url = live_server.url + path.format(id=RatingFactory().player_id)

    status, headers, body = fetch(url, Accept_Encoding="gzip")
    again, again_headers, empty = fetch(url, Accept_Encoding="gzip", If_None_Match=headers["etag"])
    _, plain_headers, plain = fetch(url)

    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in headers["vary"]
    assert gzip.decompress(body) == plain
    assert "content-encoding" not in plain_headers
    assert (again, empty) == (304, b"")
    assert again_headers["etag"] == headers["etag"]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/?active=7", "The query parameter 'active' takes 30 (days)."),
        ("/?page=abc", "The query parameter 'page' takes a page number from 1 to 100."),
        ("/top/SO?page=0", "The query parameter 'page' takes a page number from 1 to 100."),
        ("/?per=me", "The query parameter 'per' takes player (each player once)."),
        ("/?find=", "The query parameter 'find' takes a player's name or id."),
        (
            "/matchups?bracket=top5",
            "The query parameter 'bracket' takes all, top1000, top100 or proportional.",
        ),
        ("/player/{id}/SO?range=1y", "The query parameter 'range' takes 7d, 30d or all."),
        ("/player/{id}/SO?before=yesterday", "The query parameter 'before' takes a cursor"),
    ],
)
def test_invalid_query_values_are_400s_that_say_what_is_allowed(live_server, path, message):
    url = live_server.url + path.format(id=RatingFactory().player_id)

    status, headers, body = fetch(url)

    assert status == 400
    assert headers["content-type"].startswith("text/html")
    assert message in html.unescape(body.decode())


def shown_players(page: str) -> list[str]:
    return re.findall(r'<tr id="r-(\d+)-[A-Z]+"', page)


def test_rankings_offer_page_numbers_up_to_the_pages_that_hold_rows(live_server):
    for n in range(730):
        RatingFactory(value=1000.0 + n)

    _, _, first = fetch(f"{live_server.url}/?page=1")
    _, _, fourth = fetch(f"{live_server.url}/?page=4")

    def pages(body: bytes) -> list[str]:
        return re.findall(r'aria-label="Page (\d+)"', body.decode())

    assert pages(first) == ["1", "2", "3", "4", "5"]  # four ahead; more exist
    assert pages(fourth) == ["1", "2", "3", "4", "5", "6", "7", "8"]  # page 8 is the last
    assert 'href="/?page=4" aria-label="Page 4" aria-current="page"' in fourth.decode()
    assert first.decode().count("…") == 1 and fourth.decode().count("…") == 0


def test_find_me_lands_on_the_page_holding_the_player(live_server):
    ratings = [RatingFactory(value=2000.0 - n) for n in range(250)]
    wanted = ratings[234]  # ranked 235th: the third page
    PlayerFactory(name=wanted.player.name.upper())  # same name, unranked: not the one meant
    ky = Character.objects.get(code="KY")
    RatingFactory(player=wanted.player, character=ky, value=1000.0)  # first in Ky's list

    by_name = fetch(f"{live_server.url}/?find={quote(wanted.player.name.lower())}")
    by_id = fetch(f"{live_server.url}/?per=player&find={wanted.player_id}")
    in_ky = fetch(f"{live_server.url}/top/KY?find={wanted.player_id}")
    nobody = fetch(f"{live_server.url}/?find=nobody")

    anchor = f"r-{wanted.player_id}-SO"
    assert by_name[0] == 302 and by_name[1]["location"] == f"/?page=3#{anchor}"
    assert by_id[1]["location"] == f"/?per=player&page=3#{anchor}"
    assert in_ky[1]["location"] == f"/top/KY#r-{wanted.player_id}-KY"
    assert nobody[0] == 404
    assert "Nobody named &#x27;nobody&#x27;" in nobody[2].decode()
    with urlopen(live_server.url + urlsplit(by_name[1]["location"]).path + "?page=3") as page:
        assert wanted.player_id in shown_players(page.read().decode())
