"""A rating's profile (docs/pages-and-api.md#pages, `/player/<id>/<char>`): everything the
page shows, read together: the rating card, its chart (matches.selectors.history_points),
a page of its games in sets (matches.selectors.match_history), fair opponents
(matches.selectors.opponents), the players met most (matches.selectors.rivals), matchups
and ranks. A fixed number of queries whatever the
size of the data."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone

from matches.models import PlayerFlagChange
from matches.params import glicko_params
from matches.ratings.settling import deviation_after_last_game, games_to_settle
from matches.selectors.history_points import DEFAULT_HISTORY_RANGE, HistoryPoint, chart_history
from matches.selectors.match_history import GameCursor, MatchSetPage, match_sets
from matches.selectors.matchups import PlayerMatchups, player_matchups
from matches.selectors.opponents import FairOpponent, profile_fair_opponents
from matches.selectors.rivals import Meeting, players_met_most
from players import rules
from players.models import Player, Rating
from players.selectors.ownership import also_plays_as
from players.selectors.rankings import (
    UNCONFIRMED,
    UNSETTLED,
    RatingRanks,
    opponents_to_confirm,
    rating_ranks,
    unranked_reason,
)
from players.selectors.ratings import RatingOverview, rating_overview
from web.moment import one_moment


@dataclass(frozen=True)
class Unranked:
    """Why a rating is not ranked: its player's flag ("hidden", "private", "cheater"), or its ± too
    wide, and then what brings it back: `games` more against settled players of its level.
    `idle_since` is its last game when that game left it settled, so that only the decay
    since has widened it; None when it is still settling (too few games), and `widest`
    when the ± is at its cap, which hides which of the two it is. `opponents`: the more
    different opponents, settled when they play it, it must meet in counted games to be
    confirmed (players.rules.confirmed), whether or not its ± is narrow."""

    flag: str | None
    games: int = 0
    idle_since: datetime | None = None
    widest: bool = False
    opponents: int = 0


def unranked(rating: Rating) -> Unranked | None:
    """Why `rating` (with its player loaded) is not ranked; None when it is."""
    reason = unranked_reason(rating)
    opponents = opponents_to_confirm(rating)
    if reason == UNCONFIRMED:
        return Unranked(flag=None, opponents=opponents)
    if reason != UNSETTLED:
        return None if reason is None else Unranked(flag=reason)
    params = glicko_params()
    games = games_to_settle(rating.deviation, params)
    if rating.last_played_at is None or rating.last_decay_at is None:
        return Unranked(flag=None, games=games, opponents=opponents)
    after = deviation_after_last_game(
        rating.deviation,
        rating.last_decay_at.timestamp(),
        rating.last_played_at.timestamp(),
        params,
    )
    if after is None:
        return Unranked(flag=None, games=games, widest=True, opponents=opponents)
    idle = rules.is_settled(after)
    return Unranked(
        flag=None,
        games=games,
        idle_since=rating.last_played_at if idle else None,
        opponents=opponents,
    )


@dataclass(frozen=True)
class RatingProfile:
    overview: RatingOverview
    history_range: str
    history: list[HistoryPoint]
    history_days: int  # the first points of `history` that are one a day (see chart_history)
    matches: MatchSetPage
    opponents: list[FairOpponent]  # fair opponents, fairest first
    matchups: PlayerMatchups
    ranks: RatingRanks | None  # None: unranked, for `unranked`
    unranked: Unranked | None
    # A hidden or cheater change of this player waits for its recompute: the numbers shown
    # are as they stood before it.
    recompute_pending: bool = False
    meetings: list[Meeting] = field(default_factory=list)  # players met most (none: a cheater)
    # The owner's other public accounts (players.selectors.ownership).
    also_plays_as: list[Player] = field(default_factory=list)

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
    as_owner: bool = False,
) -> RatingProfile | None:
    """Everything the profile page shows (None if the player or rating is unknown or hidden;
    `as_owner`: a private player's own, for their signed-in owner),
    its history range ending `now`; the fair opponents take two of its queries (one for the
    chance model), the players met most one, the ranks two. All of them read at one moment
    (web.moment)."""
    with one_moment():
        overview = rating_overview(player_id, character_code, as_owner=as_owner)
        if overview is None:
            return None
        rating = overview.rating
        return RatingProfile(
            overview,
            history_range,
            *chart_history(rating, history_range, until=now or timezone.now()),
            match_sets(rating, before=before, after=after),
            profile_fair_opponents(rating),
            player_matchups(overview.matchups),
            rating_ranks(rating),
            unranked(rating),
            flag_recompute_pending(player_id),
            [] if rating.player.cheater else players_met_most(rating),
            also_plays_as(player_id),
        )


def flag_recompute_pending(player_id: str) -> bool:
    """Whether a hidden or cheater change of this player waits for its recompute
    (matches.services.flags), queued or running."""
    return (
        PlayerFlagChange.objects.filter(player_id=player_id)
        .exclude(recompute__in=(PlayerFlagChange.Recompute.NONE, PlayerFlagChange.Recompute.DONE))
        .exists()
    )
