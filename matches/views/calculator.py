"""The calculator page (`/calculator`): win probability and rating changes for two ratings."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from matches.selectors.calculator import Contender, win_forecast
from players.roster import ROSTER
from players.selectors.ratings import rating_of


class ContenderForm(forms.Form):
    """One side of the calculator: a rating and its ±, or a player's character."""

    rating = forms.FloatField(required=False, min_value=0, max_value=5000)
    uncertainty = forms.FloatField(
        label="±",
        required=False,
        min_value=2,
        max_value=700,
        help_text="as shown: twice the deviation",
    )
    player = forms.CharField(label="or player id", required=False, max_length=32)
    character = forms.ChoiceField(
        required=False, choices=[("", "—")] + [(code, name) for _, code, name in ROSTER]
    )

    def clean(self) -> dict:
        data = super().clean()
        if data.get("player"):
            found = rating_of(data["player"], data.get("character") or "")
            if found is None:
                raise forms.ValidationError("No rating for this player and character.")
            data["contender"] = Contender.of(found)
        elif data.get("rating") is not None and data.get("uncertainty") is not None:
            data["contender"] = Contender(data["rating"], data["uncertainty"] / 2)
        elif self.has_changed():
            raise forms.ValidationError("Give a rating and its ±, or a player and character.")
        return data


def calculator(request: HttpRequest) -> HttpResponse:
    sides = [ContenderForm(request.GET or None, prefix=side) for side in ("a", "b")]
    forecast = None
    if all(form.is_valid() for form in sides) and all(
        "contender" in form.cleaned_data for form in sides
    ):
        forecast = win_forecast(*(form.cleaned_data["contender"] for form in sides))
    return render(request, "matches/calculator.html", {"sides": sides, "forecast": forecast})
