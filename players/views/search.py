"""The search page: players by current or past name; a query that is exactly one
player's current name goes straight to that player."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from players.selectors.search import search_players


def search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("name", "").strip()
    hits = search_players(query)
    exact = [hit for hit in hits if hit.exact_current_name]
    if len(exact) == 1:
        return redirect("player", exact[0].player_id)
    return render(request, "players/search.html", {"query": query, "hits": hits})
