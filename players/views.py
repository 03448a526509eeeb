"""Pages that read players only: search, and the way from a player to their best character."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from players.selectors import best_character_code, search_players


def search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("name", "").strip()
    return render(request, "players/search.html", {"query": query, "hits": search_players(query)})


def player(request: HttpRequest, player_id: str) -> HttpResponse:
    """A player's page is their best character's (highest value - 3 * deviation)."""
    code = best_character_code(player_id)
    if code is None:
        raise Http404("We know no rated player with this id.")
    return redirect("profile", player_id=player_id, code=code)
