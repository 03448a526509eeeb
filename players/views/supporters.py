"""The supporters page: thanks to the players who support the site."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from players.selectors.supporters import supporters as supporting_players


def supporters(request: HttpRequest) -> HttpResponse:
    return render(request, "players/supporters.html", {"supporters": supporting_players()})
