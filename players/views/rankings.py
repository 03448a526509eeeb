"""The rankings pages: the top 100 overall (`/`) and of one character (`/top/<char>`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from urllib.parse import quote

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from players.formatting import rating_text
from players.models import Player
from players.selectors.rankings import ranking_page
from players.tiers import rank_tier
from web.partials import render_partial

NOT_FOUND_CHARACTER = "There is no character with this code."
# What Django's reverse() leaves unquoted in a path (django.urls.resolvers).
_URL_SAFE = "!$&'()*+,;=/~:@"


def ranked_below() -> float:
    """The ± (two deviations) below which a rating is ranked."""
    return 2 * settings.RATING_LOW_DEVIATION


def profile_url() -> Callable[[str, str], str]:
    """`profile_url(player_id, code)`, the same as reversing 'profile' for each row
    (quoted alike) at a fraction of the cost: the URL is reversed once."""
    # Placeholders the URL's converters accept (a player id is digits).
    pattern = reverse("profile", args=("9" * 32, "CODE"))
    before, rest = pattern.split("9" * 32)
    middle, after = rest.split("CODE")

    def url(player_id: str, code: str) -> str:
        player_id, code = quote(player_id, safe=_URL_SAFE), quote(code, safe=_URL_SAFE)
        return f"{before}{player_id}{middle}{code}{after}"

    return url


View = Callable[..., HttpResponse]


def rankings_view(*, refreshed_at: Callable[[], datetime | None]) -> View:
    """The rankings page, told when ranks were last refreshed by `refreshed_at` (the
    refresh that numbers them is the matches app's; the URLconf wires the two)."""

    def top(request: HttpRequest, code: str | None = None) -> HttpResponse:
        page = ranking_page(
            code, one_per_player=request.GET.get("per") == "player", refreshed_at=refreshed_at()
        )
        if page is None:
            raise Http404(NOT_FOUND_CHARACTER)
        url, platforms = profile_url(), dict(Player.Platform.choices)
        # Each row is a flat dict of texts, so the partial (web.partials) only places them.
        rows = [
            {
                "rank": str(row.rank),
                "url": url(row.player_id, row.character.code),
                "name": row.name,
                "platform": platforms.get(row.platform, row.platform),
                "character": row.character.name,
                "code": row.character.code,
                "value": str(row.value),
                "rating": rating_text(row.value, row.deviation),
                "tier": rank_tier(row.value),
                "wins": str(row.wins),
                "record": f"{row.wins}\u2013{row.losses}",
            }
            for row in page.rows
        ]
        return render(
            request,
            "players/rankings.html",
            {
                "page": page,
                "rows": render_partial(
                    "players/ranking_rows.html", {"rows": rows, "overall": page.character is None}
                ),
                "ranked_below": ranked_below(),
            },
        )

    return top
