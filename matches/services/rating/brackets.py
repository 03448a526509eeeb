"""The top-N character matchup brackets, rebuilt from all counted games and current ranks."""

from __future__ import annotations

from collections.abc import Iterable

from matches.models import CharacterMatchup, Match
from matches.ratings.ledger import BRACKETS, Game
from matches.services.rating.storage import (
    LARGEST_BRACKET,
    matches_in_order,
    new_matchup_ledger,
    write_matchups,
)
from players.selectors.rankings import top_rated_keys


def rebuild_bracket_matchups(counted_games: Iterable[Game] | None = None) -> None:
    """Rebuild the top-N character matchup brackets from all counted games and current ranks.

    Live rating files a game under a top-N bracket by the ranks of the moment; after a
    recompute there are no such moments to replay, so the current ranks decide. The
    counted games are read from the database unless given (in time order).
    """
    matchups = new_matchup_ledger(top_rated_keys(LARGEST_BRACKET), BRACKETS[1:])
    if counted_games is None:
        counted_games = (
            game
            for games in matches_in_order(Match.objects.filter(rating__counted=True))
            for game in games
        )
    for game in counted_games:
        matchups.apply_character_matchups(game)
    CharacterMatchup.objects.exclude(bracket=CharacterMatchup.Bracket.ALL).delete()
    write_matchups(matchups, {}, fresh=True)
