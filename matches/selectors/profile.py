"""A rating's profile (docs/pages-and-api.md#pages, `/player/<id>/<char>`): everything the
page shows, read together: the rating card, its chart (matches.selectors.history_points),
a page of its games in sets (matches.selectors.match_history), fair opponents
(matches.selectors.opponents), matchups and ranks. A fixed number of queries whatever the
size of the data."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from matches.models import PlayerFlagChange
from matches.params import glicko_params
from matches.ratings.glicko import deviation_before_decay
from matches.selectors.calibration import current_calibration
from matches.selectors.history_points import DEFAULT_HISTORY_RANGE, HistoryPoint, chart_history
from matches.selectors.match_history import GameCursor, MatchSetPage, match_sets
from matches.selectors.matchups import PlayerMatchups, player_matchups
from matches.selectors.opponents import FairOpponent, profile_fair_opponents
from players.formatting import uncertainty_text
from players.models import Rating
from players.selectors.rankings import RatingRanks, rating_ranks, unranked_reason
from players.selectors.ratings import RatingOverview, rating_overview


@dataclass(frozen=True)
class RatingProfile:
    overview: RatingOverview
    history_range: str
    history: list[HistoryPoint]
    history_days: int  # the first points of `history` that are one a day (see chart_history)
    matches: MatchSetPage
    opponents: list[FairOpponent]  # fair opponents, fairest first
    matchups: PlayerMatchups
    ranks: RatingRanks | None  # None: unranked, for unranked_reason
    unranked_reason: str | None
    # A cheater whose flag still waits for the recompute that takes their games out.
    recompute_pending: bool = False

    @property
    def rating(self) -> Rating:
        return self.overview.rating

    @property
    def history_games(self) -> int:
        """How many games the chart draws one by one (after the rating before them)."""
        return max(0, len(self.history) - self.history_days - 1)


def rating_profile(
    player_id: str,
    character_code: str,
    *,
    history_range: str = DEFAULT_HISTORY_RANGE,
    before: GameCursor | None = None,
    after: GameCursor | None = None,
    now: datetime | None = None,
) -> RatingProfile | None:
    """Everything the profile page shows (None if the player or rating is unknown or hidden),
    its history range ending `now`; the fair opponents take one of its queries, the ranks
    two, and the calibration both its history and its opponents go through one."""
    overview = rating_overview(player_id, character_code)
    if overview is None:
        return None
    rating = overview.rating
    calibration = current_calibration()
    return RatingProfile(
        overview,
        history_range,
        *chart_history(rating, history_range, until=now or timezone.now()),
        match_sets(rating, before=before, after=after, calibration=calibration),
        profile_fair_opponents(rating, calibration=calibration),
        player_matchups(overview.matchups),
        rating_ranks(rating),
        why_unranked(rating),
        rating.player.cheater and flag_recompute_pending(player_id),
    )


def flag_recompute_pending(player_id: str) -> bool:
    """Whether a hidden or cheater change of this player waits for its recompute
    (matches.services.flags), queued or running."""
    return (
        PlayerFlagChange.objects.filter(player_id=player_id)
        .exclude(recompute__in=(PlayerFlagChange.Recompute.NONE, PlayerFlagChange.Recompute.DONE))
        .exists()
    )


def why_unranked(rating: Rating) -> str | None:
    """`unranked_reason`, telling an idle rating from a new one: a rating that was settled
    after its last game and is too wide only because its ± grew while idle says so."""
    reason = unranked_reason(rating)
    player, played, decayed = rating.player, rating.last_played_at, rating.last_decay_at
    if reason is None or player.hidden or player.cheater or played is None or decayed is None:
        return reason
    params = glicko_params()
    periods = math.floor((decayed - played).total_seconds() / params.decay_period_seconds)
    after_last_game = deviation_before_decay(rating.deviation, periods, params)
    if periods <= 0 or after_last_game is None or after_last_game >= params.low_deviation:
        return reason
    return (
        f"idle since {played:%-d %b %Y}: its ± grew from {uncertainty_text(after_last_game)} "
        f"to {uncertainty_text(rating.deviation)} without games, and playing brings it "
        "down again"
    )
