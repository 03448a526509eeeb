"""The search page: players by current or past name."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from players.selectors.search import search_players


def search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("name", "").strip()
    return render(request, "players/search.html", {"query": query, "hits": search_players(query)})
