"""The profile pages: `/player/<id>` (the way to a player's best character) and
`/player/<id>/<char>` (a rating with its history, sets, matchups and fair opponents)."""

from __future__ import annotations

from dataclasses import replace

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from matches import charts
from matches.selectors.history_points import HISTORY_RANGES
from matches.selectors.match_history import GameCursor
from matches.selectors.matchups import player_matchups, rating_patch_matchups
from matches.selectors.patches import ALL_TIME
from matches.selectors.profile import RatingProfile, rating_profile
from matches.views.patches import chosen_patch
from matches.views.profile_texts import profile_body
from players.formatting import count_number, rating_text, record_text, shown_name
from players.selectors.ratings import best_character_code
from web.errors import InvalidQuery, one_of
from web.partials import render_partial
from web.previews import LinkPreview


def player(request: HttpRequest, player_id: str, *, as_owner: bool = False) -> HttpResponse:
    """A player's page is their best character's (highest value - 3 * deviation)."""
    code = best_character_code(player_id, as_owner=as_owner)
    if code is None:
        raise Http404("We know no rated player with this id.")
    return redirect("profile", player_id=player_id, code=code)


def link_preview(name: str, found: RatingProfile) -> LinkPreview:
    """'Daisy · Sol Badguy' and 'Rating 1623 ±120 · #3 Sol Badguy, #41 overall · 120-80'
    (a cheater's rating is not shown, as on the page)."""
    rating, character = found.rating, found.rating.character.name
    title = f"{name} · {character}"
    if rating.player.cheater:
        return LinkPreview(title, f"{character}: flagged as cheating, no rating shown.")
    parts = [f"Rating {rating_text(rating.value, rating.deviation)}"]
    if found.ranks is not None:
        ranks = found.ranks
        parts.append(
            f"#{count_number(ranks.character)} {character}, #{count_number(ranks.overall)} overall"
        )
    parts.append(f"{record_text(rating.wins, rating.losses)} (W\u2013L)")
    return LinkPreview(title, " · ".join(parts))


def _cursor(request: HttpRequest, key: str) -> GameCursor | None:
    """The history page cursor in `key` (`before`, `after`), if any."""
    if key not in request.GET:
        return None
    try:
        return GameCursor.parse(request.GET[key])
    except (ValueError, OverflowError, OSError):
        raise InvalidQuery(key, "a cursor from the history's own page links") from None


def history_cursors(request: HttpRequest) -> tuple[GameCursor | None, GameCursor | None]:
    """The page of match history asked for: older than `before`, or newer than `after`
    (400 for a cursor no page wrote)."""
    return _cursor(request, "before"), _cursor(request, "after")


def profile(
    request: HttpRequest, player_id: str, code: str, *, as_owner: bool = False
) -> HttpResponse:
    """A rating's page; `as_owner`: a private player's own, for their signed-in owner."""
    history_range = request.GET.get("range", "30d")
    if history_range not in HISTORY_RANGES:
        raise InvalidQuery("range", one_of(HISTORY_RANGES))
    before, after = history_cursors(request)
    # The matchups of all time unless a patch is asked for (docs/rating-model.md#patches).
    patch = chosen_patch(request, default=ALL_TIME)
    now = timezone.now()
    found = rating_profile(
        player_id,
        code,
        history_range=history_range,
        before=before,
        after=after,
        now=now,
        as_owner=as_owner,
    )
    if found is None:
        raise Http404("We know no rated games of this player with this character.")
    if patch.patch is not None:
        rows = rating_patch_matchups(found.rating.player_id, found.rating.character_id, patch.patch)
        found = replace(found, matchups=player_matchups(rows))
    span = HISTORY_RANGES[history_range]
    rating = found.rating
    peak = (
        None
        if rating.peak_value is None
        else charts.ChartPoint(rating.peak_at, rating.peak_value, rating.peak_deviation)
    )
    start = now - span if span else None
    chart = charts.rating_chart(
        "rating-history",
        found.history,
        title=f"Rating history ({history_range})",
        start=start,
        end=now,
        peak=peak,
    )
    ringed = charts.peak_ringed(found.history, peak, start=start, end=now)
    name = shown_name(found.rating.player.name)
    return render(
        request,
        "matches/profile.html",
        {
            "name": name,
            "preview": link_preview(name, found),
            "character": found.rating.character.name,
            "body": render_partial(
                "matches/profile_body.html",
                profile_body(found, chart, peak_ringed=ringed, patch=patch)._asdict(),
            ),
        },
    )
