"""The calculator (docs/pages-and-api.md#pages, `/calculator`): win probability and both sides'
ratings after either result, by the site's own rules, for typed-in ratings or players
found by name.

The page and `/api/v1/probability/` (which the page's script asks as the inputs change)
both show `win_forecast` with the texts defined here, so they cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass

from matches.params import glicko_params
from matches.ratings.glicko import game_counts, rate_game, win_probability
from matches.selectors.calibration import NO_CALIBRATION, Calibration, current_calibration
from players.formatting import percent, rating_text, signed_text
from players.models import Rating
from players.selectors.ratings import player_detail
from players.selectors.search import HitRating, PlayerHit, search_players


@dataclass(frozen=True)
class Contender:
    """One side of the calculator: typed-in numbers, or a player's rating."""

    value: float
    deviation: float
    rating: Rating | None = None

    @classmethod
    def of(cls, rating: Rating) -> Contender:
        return cls(rating.value, rating.deviation, rating)

    @classmethod
    def of_hit(cls, rating: HitRating) -> Contender:
        """The side a found player's rating plays: the rating read whole (its player's name
        and flags, its character), one query."""
        return cls.of(Rating.objects.select_related("player", "character").get(id=rating.id))

    @property
    def rating_text(self) -> str:
        return rating_text(self.value, self.deviation)

    @property
    def eligible(self) -> bool:
        """Cheaters' games never move ratings."""
        return self.rating is None or not self.rating.player.cheater


@dataclass(frozen=True)
class Outcome:
    value: float
    deviation: float
    change: float

    @property
    def rating_text(self) -> str:
        return rating_text(self.value, self.deviation)

    @property
    def change_text(self) -> str:
        """The change as the page and the API show it: '+8.3', '-21.9' (a true minus)."""
        return signed_text(self.change)


@dataclass(frozen=True)
class SideForecast:
    contender: Contender
    model_win_probability: float  # P(this side wins) by the rating model alone
    after_win: Outcome
    after_loss: Outcome
    calibration: Calibration = NO_CALIBRATION

    @property
    def win_probability(self) -> float:
        """P(this side wins) as the site shows it (calibrated)."""
        return self.calibration.shown(self.model_win_probability)

    @property
    def win_probability_text(self) -> str:
        return percent(self.win_probability)


@dataclass(frozen=True)
class Forecast:
    a: SideForecast
    b: SideForecast
    # False: the game would be stored but move no rating (a flagged player, or a lopsided
    # game between established players: then neither result counts, upset or not).
    counts: bool

    @property
    def sides(self) -> tuple[SideForecast, SideForecast]:
        return self.a, self.b


def win_forecast(a: Contender, b: Contender) -> Forecast:
    """P(A wins) and both sides' ratings after either result, by the site's own rules."""
    params = glicko_params()
    probability = win_probability(a.value, a.deviation, b.value, b.deviation)
    counts = (
        a.eligible
        and b.eligible
        and game_counts(a.value, a.deviation, b.value, b.deviation, True, params)
    )
    after: dict[bool, tuple[Outcome, Outcome]] = {}
    for a_won in (True, False):
        va, da, vb, db = (
            rate_game(a.value, a.deviation, b.value, b.deviation, float(a_won), params)
            if counts
            else (a.value, a.deviation, b.value, b.deviation)
        )
        after[a_won] = (Outcome(va, da, va - a.value), Outcome(vb, db, vb - b.value))
    calibration = current_calibration()
    return Forecast(
        SideForecast(a, probability, after[True][0], after[False][0], calibration),
        SideForecast(b, 1.0 - probability, after[False][1], after[True][1], calibration),
        counts,
    )


CANDIDATES = 10


def players_meant(name: str, player_id: str = "") -> list[PlayerHit]:
    """The visible players a calculator side may mean, each with their ratings (most played
    first); two to three queries.

    The player picked before (`player_id`: from a suggestion, a profile's link or a choice
    among candidates) while `name` is empty or still finds them; otherwise the players an
    exact current or past name gives, else every player whose name contains `name`, best
    match first.
    """
    name = name.strip()
    if not name:
        found = player_detail(player_id) if player_id else None
        if found is None:
            return []
        player = found.player
        return [
            PlayerHit(
                player.id,
                player.name,
                player.platform,
                matched_name=player.name,
                last_seen=player.last_seen,
                supporter=player.supporter,
                cheater=player.cheater,
                exact_name=True,
                exact_current_name=True,
                ratings=[HitRating.of(rating) for rating in found.ratings],
            )
        ]
    hits = search_players(name, limit=CANDIDATES)
    picked = [hit for hit in hits if hit.player_id == player_id]
    exact = [hit for hit in hits if hit.exact_name]
    return picked or exact or hits
