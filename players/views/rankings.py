"""The rankings pages: overall (`/`) and of one character (`/top/<char>`), 100 a page."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import quote

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from players import rules
from players.formatting import count_number, rating_text, record_text, shown_name
from players.models import Player
from players.selectors.rankings import (
    ACTIVE_DAYS,
    RANKING_SIZE,
    RankingPage,
    ranking_page,
    ranking_position,
)
from players.tiers import rank_tier
from web.errors import InvalidQuery, one_of
from web.partials import render_partial
from web.previews import LinkPreview

NOT_FOUND_CHARACTER = "There is no character with this code."
# Deeper pages walk ever more of the index; nobody reads a ranking 100 pages down.
MAX_PAGE = 100
# What Django's reverse() leaves unquoted in a path (django.urls.resolvers).
_URL_SAFE = "!$&'()*+,;=/~:@"


class RankingRow(NamedTuple):
    """A row of `players/ranking_rows.html`: texts (numbers already formatted) and flags."""

    rank: str
    rank_sort: str  # the rank as a plain number, for sorting
    anchor: str  # the row's id, which "find me" links to
    url: str
    name: str
    supporter: bool
    platform: str
    character: str
    code: str
    value: str
    rating: str
    tier: str
    wins: str
    record: str


def settled_plus_minus_limit() -> float:
    """The ± (two deviations) below which a rating is settled, which ranking asks of it
    (players.rules)."""
    return 2 * rules.low_deviation()


# What the player id and character converters accept, standing for each argument.
_PLACEHOLDERS = ("9" * 32, "CODE")


def _url_maker(name: str, arity: int) -> Callable[..., str]:
    """`url(*args)`, the same as reversing `name` with `arity` arguments (a player id, a
    character code) and quoted alike, at a fraction of the cost: the URL is reversed once,
    into a format with a `{}` for each argument."""
    rest = reverse(name, args=_PLACEHOLDERS[:arity])
    pieces = []
    for placeholder in _PLACEHOLDERS[:arity]:
        piece, rest = rest.split(placeholder, 1)
        pieces.append(piece)
    template = "{}".join(piece.replace("{", "{{").replace("}", "}}") for piece in [*pieces, rest])

    def url(*args: str) -> str:
        return template.format(*map(_quoted, args))

    return url


def _quoted(arg: str) -> str:
    # Ids and codes are ASCII letters and digits, which quote() returns as they are, at
    # the cost of a row's other texts together.
    return arg if arg.isascii() and arg.isalnum() else quote(arg, safe=_URL_SAFE)


def profile_url_maker() -> Callable[[str, str], str]:
    """A maker of profile URLs, `url(player_id, code)`, as reversing 'profile' for each row."""
    return _url_maker("profile", 2)


def player_url_maker() -> Callable[[str], str]:
    """A maker of player URLs, `url(player_id)`, as reversing 'player' for each row."""
    return _url_maker("player", 1)


def _small_whole_number(text: str) -> bool:
    """ASCII digits, few enough for int() (which also reads other scripts' digits)."""
    return text.isascii() and text.isdigit() and len(text) <= 6


def _choice(request: HttpRequest, name: str, choices: tuple[int, ...]) -> int | None:
    """A whole-number query parameter among `choices`; None when absent, 400 otherwise
    (a cached page per made-up value would be a cache to fill at will)."""
    raw = request.GET.get(name)
    if raw is None:
        return None
    if not _small_whole_number(raw) or int(raw) not in choices:
        raise InvalidQuery(name, f"{one_of(choices)} (days)")
    return int(raw)


def _page_number(request: HttpRequest) -> int:
    raw = request.GET.get("page", "1")
    if not _small_whole_number(raw) or not 1 <= int(raw) <= MAX_PAGE:
        raise InvalidQuery("page", f"a page number from 1 to {MAX_PAGE}")
    return int(raw)


def _one_per_player(request: HttpRequest) -> bool:
    per = request.GET.get("per")
    if per not in (None, "player"):
        raise InvalidQuery("per", "player (each player once)")
    return per == "player"


def _url_with(request: HttpRequest, **changes: str | None) -> str:
    """This list's URL with some parameters changed (None drops one), the others kept;
    any change but the page's goes back to the first page."""
    query = request.GET.copy()
    if "page" not in changes:
        query.pop("page", None)
    for name, value in changes.items():
        query.pop(name, None)
        if value is not None:
            query[name] = value
    return f"{request.path}?{query.urlencode()}" if query else request.path


def row_anchor(player_id: str, code: str) -> str:
    """The id of a ranking row (a player's rating of a character), unique on a page."""
    return f"r-{player_id}-{code}"


def _find(request: HttpRequest, page: RankingPage, wanted: str) -> HttpResponse:
    """The page of this ranking that holds `wanted` (a name or a player id), its row marked
    by the URL's fragment; 404 when they are not ranked in it, or past its last page."""
    if not wanted:
        raise InvalidQuery("find", "a player's name or id")
    row = ranking_position(
        wanted,
        page.character,
        one_per_player=page.one_per_player,
        active_days=page.active_days,
        bound=MAX_PAGE * RANKING_SIZE,
    )
    if row is None:
        raise Http404(f"Nobody named {wanted!r} (or with this id) is ranked in this list.")
    if row.rank > MAX_PAGE * RANKING_SIZE:
        raise Http404(f"{row.name} is ranked past the {MAX_PAGE} pages this list shows.")
    number = (row.rank - 1) // RANKING_SIZE + 1
    target = _url_with(request, find=None, page=str(number) if number > 1 else None)
    return redirect(f"{target}#{row_anchor(row.player_id, row.character.code)}")


class PageLink(NamedTuple):
    number: int
    url: str
    after_gap: bool  # pages are left out before this one


def _page_links(request: HttpRequest, page: RankingPage) -> list[PageLink]:
    """The pages the pager offers: the first, two before this one, and those known to
    hold rows after it (PAGES_AHEAD at most)."""
    numbers = sorted({1, *range(max(1, page.number - 2), page.last_page_seen + 1)})
    return [
        PageLink(n, _url_with(request, page=str(n) if n > 1 else None), n > before + 1)
        for before, n in zip([0, *numbers], numbers, strict=False)
    ]


def _link_preview(page: RankingPage) -> LinkPreview:
    """'Rankings · Sol' and its first three rows: '#1 Daisy 2103 ±60 (Sol) · #2 …'."""
    title = "Rankings" + (f" · {page.character.name}" if page.character else "")
    if page.number > 1:
        title += f" · page {page.number}"
    leaders = [
        f"#{count_number(row.rank)} {shown_name(row.name)} {rating_text(row.value, row.deviation)}"
        + ("" if page.character else f" ({row.character.name})")
        for row in page.rows[:3]
    ]
    return LinkPreview(title, " · ".join(leaders) or "No rating is ranked here yet.")


def top(request: HttpRequest, code: str | None = None) -> HttpResponse:
    """A page of the rankings: `?per=player`, `?active=30`, `?page=N`; `?find=` answers
    with the page that holds a player."""
    active_days = _choice(request, "active", ACTIVE_DAYS)
    wanted = request.GET.get("find")
    page = ranking_page(
        code,
        one_per_player=_one_per_player(request),
        active_days=active_days,
        number=1 if wanted is not None else _page_number(request),
    )
    if page is None:
        raise Http404(NOT_FOUND_CHARACTER)
    if wanted is not None:
        return _find(request, page, wanted.strip())
    url, platforms = profile_url_maker(), dict(Player.Platform.choices)
    # The row's texts made here, so that the partial only places them.
    rows = [
        RankingRow(
            rank=count_number(row.rank),
            rank_sort=str(row.rank),
            anchor=row_anchor(row.player_id, character.code),
            url=url(row.player_id, character.code),
            name=shown_name(row.name),
            supporter=row.supporter,
            platform=platforms.get(row.platform, row.platform),
            character=character.name,
            code=character.code,
            value=str(row.value),
            rating=rating_text(row.value, row.deviation),
            tier=rank_tier(row.value),
            wins=str(row.wins),
            record=record_text(row.wins, row.losses),
        )
        for row in page.rows
        for character in (row.character,)
    ]
    return render(
        request,
        "players/rankings.html",
        {
            "page": page,
            "rows": render_partial(
                "players/ranking_rows.html", {"rows": rows, "overall": page.character is None}
            ),
            "settled_plus_minus_limit": settled_plus_minus_limit(),
            "everyone_url": _url_with(request, active=None),
            "active_urls": [(days, _url_with(request, active=str(days))) for days in ACTIVE_DAYS],
            "per_player_url": _url_with(request, per="player"),
            "every_character_url": _url_with(request, per=None),
            "previous_url": (
                _url_with(request, page=str(page.number - 1) if page.number > 2 else None)
                if page.number > 1
                else ""
            ),
            "next_url": _url_with(request, page=str(page.number + 1)) if page.has_next else "",
            "first_url": _url_with(request, page=None),
            "page_links": _page_links(request, page),
            "preview": _link_preview(page),
        },
    )
