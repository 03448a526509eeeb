"""The head-to-head page (`/player/<id>/<char>/vs/<id>`): two players' record against each
other over all their characters, the odds of their next game and the sets of this
character against the other player."""

from __future__ import annotations

from typing import NamedTuple

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.defaultfilters import floatformat

from matches.selectors.rivals import Record, Tally, head_to_head
from matches.views.profile import history_cursors
from matches.views.profile_texts import history_sets
from players.formatting import count_number, record_text
from players.views.rankings import profile_url_maker, settled_plus_minus_limit
from web.partials import render_partial


class RecordTexts(NamedTuple):
    """A record as the page shows it: every game, then which of them moved ratings."""

    label: str
    games: str
    record: str
    counted: str
    uncounted: str  # "": none
    pending: str  # "": none


def _record_texts(label: str, record: Record) -> RecordTexts:
    def part(tally: Tally) -> str:
        return record_text(tally.wins, tally.losses) if tally.games else ""

    return RecordTexts(
        label=label,
        games=count_number(record.games),
        record=record_text(record.wins, record.losses),
        counted=record_text(record.counted.wins, record.counted.losses),
        uncounted=part(record.uncounted),
        pending=part(record.pending),
    )


def rivals(request: HttpRequest, player_id: str, code: str, opponent_id: str) -> HttpResponse:
    before, after = history_cursors(request)
    found = head_to_head(
        player_id,
        code,
        opponent_id,
        opponent_character_code=request.GET.get("character"),
        before=before,
        after=after,
    )
    if found is None:
        raise Http404("We know no head-to-head of these players with this character.")
    url = profile_url_maker()
    rating, opponent_rating = found.rating, found.opponent_rating
    records = [
        _record_texts(f"{pair.character.name} vs {pair.opponent_character.name}", pair.record)
        for pair in found.by_characters
    ]
    sets = history_sets(found.sets.sets, url, own_rating=True)
    return render(
        request,
        "matches/rivals.html",
        {
            "found": found,
            "player_url": url(rating.player_id, rating.character.code),
            "opponent_url": url(opponent_rating.player_id, opponent_rating.character.code),
            "total": _record_texts("Every character", found.total),
            "records": records,
            "forecast": found.forecast,
            "sets": render_partial(
                "matches/history_table.html",
                {
                    "sets": sets,
                    "settled_plus_minus_limit": floatformat(settled_plus_minus_limit(), 0),
                },
            )
            if sets
            else "",
            "previous_cursor": str(found.sets.previous_cursor or ""),
            "next_cursor": str(found.sets.next_cursor or ""),
            "character_query": ""
            if "character" not in request.GET
            else f"character={opponent_rating.character.code}&",
        },
    )
