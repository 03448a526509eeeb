"""The calculator page (`/calculator`): win probability and rating changes for two ratings,
each a player found by name and one of their characters, or typed in as numbers.

The page works as a plain form; static/js/calculator-1.4.js adds name suggestions and
updates the result as the inputs change, from `/api/v1/probability/` (the same
`win_forecast` and texts: matches.selectors.calculator)."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from matches.selectors.calculator import Contender, players_meant, win_forecast
from players.selectors.roster import current_roster
from players.selectors.search import HitRating, PlayerHit


def _character_choices(named: str | None = None) -> list[tuple[str, str]]:
    """The characters a new choice is offered: not the retired ones, save the one a link
    (a retired character's profile) already names."""
    return [("", "—")] + [
        (c.code, c.listed_name)
        for c in current_roster().characters
        if not c.retired or c.code == named
    ]


class ContenderForm(forms.Form):
    """One side of the calculator: a player's character, or a rating and its ±."""

    name = forms.CharField(label="Player", required=False, max_length=64)
    # The player picked among those the name finds (a suggestion, a profile's link, a choice).
    player = forms.CharField(required=False, max_length=32, widget=forms.HiddenInput)
    # Choices are read when a form is made (a callable), so a character added in the
    # admin is offered on the next request.
    character = forms.ChoiceField(required=False, choices=_character_choices)
    rating = forms.FloatField(required=False, min_value=0, max_value=5000)
    uncertainty = forms.FloatField(
        label="±",
        required=False,
        min_value=2,
        max_value=700,
        help_text="as shown: twice the deviation",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.is_bound:
            named = self.data.get(self.add_prefix("character"))
            self.fields["character"].choices = _character_choices(named)
        self.candidates: list[PlayerHit] = []  # the players the name finds
        self.chosen: HitRating | None = None  # the rating this side plays with

    @property
    def picked(self) -> PlayerHit | None:
        return self.candidates[0] if len(self.candidates) == 1 else None

    def clean(self) -> dict:
        data = super().clean()
        name, player_id = data.get("name", ""), data.get("player", "")
        if name or player_id:
            self.candidates = players_meant(name, player_id)
            if not self.candidates:
                raise forms.ValidationError(
                    "No player has used this name." if name else "We know no such player."
                )
            if self.picked is None:
                raise forms.ValidationError("Several players match this name: pick one.")
            ratings = self.picked.ratings
            if not ratings:
                raise forms.ValidationError("This player has no rating yet.")
            code = data.get("character")
            # Another character than theirs (a stale choice) falls back to the most played
            # that is offered.
            self.chosen = next((r for r in ratings if r.character.code == code), None)
            self.chosen = self.chosen or self.offered[0]
            data["contender"] = Contender.of_hit(self.chosen)
        elif data.get("rating") is not None and data.get("uncertainty") is not None:
            data["contender"] = Contender(data["rating"], data["uncertainty"] / 2)
        elif self.has_changed():
            raise forms.ValidationError("Give a player's name, or a rating and its ±.")
        return data

    @property
    def offered(self) -> list[HitRating]:
        """The picked player's ratings the picker offers: not a retired character's (no new
        game plays it), unless the player has no other or a link names it."""
        ratings = self.picked.ratings if self.picked else []
        current = [r for r in ratings if not r.character.retired or r == self.chosen]
        return current if any(not r.character.retired for r in current) else ratings

    def choices(self) -> list[tuple[PlayerHit, str]]:
        """When the name finds several players: each with the query string that picks them."""
        if self.picked is not None:
            return []
        links = []
        for hit in self.candidates:
            query = self.data.copy()
            query[self.add_prefix("name")] = hit.name
            query[self.add_prefix("player")] = hit.player_id
            query.pop(self.add_prefix("character"), None)
            links.append((hit, query.urlencode()))
        return links


def calculator(request: HttpRequest) -> HttpResponse:
    sides = [ContenderForm(request.GET or None, prefix=side) for side in ("a", "b")]
    forecast = None
    if all(form.is_valid() for form in sides) and all(
        "contender" in form.cleaned_data for form in sides
    ):
        forecast = win_forecast(*(form.cleaned_data["contender"] for form in sides))
    # For the script's picker, which offers a player's ratings from the search API.
    retired = " ".join(c.code for c in current_roster().characters if c.retired)
    return render(
        request,
        "matches/calculator.html",
        {"sides": sides, "forecast": forecast, "retired_codes": retired},
    )
