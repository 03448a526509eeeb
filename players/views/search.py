"""The search page: players by current or past name; a query that is exactly one
player's current name goes straight to that player."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from players.selectors.search import find_players


def search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("name", "").strip()
    found = find_players(query)
    exact = [hit for hit in found.hits if hit.exact_current_name]
    if len(exact) == 1:
        return redirect("player", exact[0].player_id)
    context = {"query": query, "hits": found.hits, "more_match": found.more_match}
    return render(request, "players/search.html", context)
