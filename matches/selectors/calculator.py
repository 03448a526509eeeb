"""The calculator (docs/pages-and-api.md#pages, `/calculator`): win probability and both sides'
ratings after either result, by the site's own rules, for typed-in ratings or players
found by name.

The page and `/api/v1/probability/` (which the page's script asks as the inputs change)
both show `win_forecast` with the texts defined here, so they cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass

from matches.rating_states import state_of
from matches.ratings.glicko import GlickoParams
from matches.ratings.ledger import Game, GameResult, RatingLedger, RatingState
from matches.selectors.calibration import Calibration, current_calibration
from matches.selectors.chances import GameChance, chance_model
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
    def character_id(self) -> int | None:
        """The character played (None for typed-in numbers: no matchup is known)."""
        return None if self.rating is None else self.rating.character_id

    @property
    def eligible(self) -> bool:
        """Cheaters' games never move ratings."""
        return self.rating is None or not self.rating.player.cheater

    def state(self, params: GlickoParams) -> RatingState:
        """This side as the ledger holds it: a player's rating as stored (its young games'
        rules with it: docs/integrity.md), typed-in numbers as a rating past them."""
        if self.rating is None:
            state = RatingState(self.value, self.deviation, wins=params.surprise_window)
        else:
            state = state_of(self.rating)
        state.last_decay_at = None  # a game now, at the deviations shown: nothing decays
        return state


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
    chance: GameChance  # this side's, as side A
    after_win: Outcome
    after_loss: Outcome
    # The other side is on the fast track (docs/integrity.md): this rating stays as it is,
    # whoever wins.
    spared: bool = False

    @property
    def win_probability(self) -> float:
        """P(this side wins) as the site shows it: the expected score the update uses."""
        return self.chance.chance

    @property
    def model_win_probability(self) -> float:
        """P(this side wins) from the ratings alone (§4.2's formula)."""
        return self.chance.ratings

    @property
    def win_probability_text(self) -> str:
        return percent(self.win_probability)

    @property
    def ratings_probability_text(self) -> str:
        return percent(self.model_win_probability)

    @property
    def matchup_text(self) -> str:
        """What this side's character is worth against the other's: '+35 points' (a loss
        with a true minus sign)."""
        return f"{signed_text(self.chance.offset, 0)} points"


@dataclass(frozen=True)
class Forecast:
    a: SideForecast
    b: SideForecast
    # False: the game would be stored but move no rating (a flagged player, or a lopsided
    # game between established players: then neither result counts, upset or not).
    counts: bool
    # How often the site's recent chances like A's came true (the lab's calibration).
    calibration: Calibration

    @property
    def sides(self) -> tuple[SideForecast, SideForecast]:
        return self.a, self.b

    @property
    def spared_text(self) -> str:
        """Why a side's rating would not move whoever wins, as the page says it (empty when
        none is spared)."""
        spared = [label for label, side in zip("AB", self.sides, strict=True) if side.spared]
        why = (
            "a new rating that keeps beating its chances by far leaves its opponents' ratings "
            "as they are until it reaches its level."
        )
        if len(spared) == 2:
            return f"Neither rating would move, whoever wins: both are new, and {why}"
        if spared:
            other = "B" if spared[0] == "A" else "A"
            return f"{spared[0]}'s rating would not move, whoever wins: {other}'s is new, and {why}"
        return ""

    @property
    def calibrated_text(self) -> str:
        """The second number, labelled: how often chances like A's came true lately."""
        if self.calibration.fitted_at is None:
            return ""
        calibrated = percent(self.calibration.shown(self.a.win_probability))
        return (
            f"On the site's latest {self.calibration.games:,} games, chances like A's "
            f"{self.a.win_probability_text} came true about {calibrated} of the time."
        )

    @property
    def parts_text(self) -> str:
        """How A's chance is made, when a matchup enters it: "A's chance: ratings alone 48.0%;
        Zato-1 against Jack-O': (minus) 35 points; together 43.0%." Empty otherwise."""
        a = self.a
        if a.chance.offset == 0.0 or a.contender.rating is None or self.b.contender.rating is None:
            return ""
        character, opponent = a.contender.rating.character, self.b.contender.rating.character
        return (
            f"A's chance: ratings alone {a.ratings_probability_text}; {character.name} against "
            f"{opponent.name}: {a.matchup_text}; together {a.win_probability_text}."
        )


def win_forecast(a: Contender, b: Contender) -> Forecast:
    """P(A wins) and both sides' ratings after either result, by the site's own rules: the
    chance shown is the expected score the update uses (docs/rating-model.md#one-chance),
    and each result is what rating the game would do (the ledger's every rule)."""
    model = chance_model()
    chance_a = model.game(
        a.value, a.deviation, b.value, b.deviation, a.character_id, b.character_id
    )
    params = model.params
    won, lost = (_rated(a, b, chance_a.offset, params, a_won) for a_won in (True, False))
    chance_b = GameChance(1.0 - chance_a.ratings, -chance_a.offset, 1.0 - chance_a.chance)
    # A counted game that moves a side neither way: its opponent is on the fast track
    # (the ledger's shield); an update always moves a rating that takes it.
    spared_a, spared_b = (
        won.counted and won_change == lost_change == 0.0
        for won_change, lost_change in (
            (won.change_a, lost.change_a),
            (won.change_b, lost.change_b),
        )
    )
    return Forecast(
        SideForecast(a, chance_a, _outcome(won, "a"), _outcome(lost, "a"), spared_a),
        SideForecast(b, chance_b, _outcome(lost, "b"), _outcome(won, "b"), spared_b),
        won.counted,
        current_calibration(),
    )


# The two sides in the forecast's ledger: placeholder players, characters 0 and 1.
_SIDES = (("a", 0), ("b", 1))


def _rated(
    a: Contender, b: Contender, offset: float, params: GlickoParams, a_won: bool
) -> GameResult:
    """The game rated by a ledger holding the two sides alone."""
    sides = tuple(zip(_SIDES, (a, b), strict=True))
    ledger = RatingLedger(
        params=params,
        excluded_players=frozenset(player for (player, _), side in sides if not side.eligible),
        offsets={(0, 1): offset},
    )
    for key, side in sides:
        ledger.ratings[key] = side.state(params)
    return ledger.apply(Game(0, 0.0, *_SIDES[0], *_SIDES[1], a_won))


def _outcome(result: GameResult, side: str) -> Outcome:
    if side == "a":
        return Outcome(result.new_value_a, result.new_deviation_a, result.change_a)
    return Outcome(result.new_value_b, result.new_deviation_b, result.change_b)


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
