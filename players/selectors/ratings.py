"""Reads of players, characters and ratings that several features share (the profile, the
calculator, the API's player and rating resources). Every function does a fixed number
of queries."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F, Q, QuerySet

from players import rules
from players.models import Character, Player, PlayerMatchup, PlayerName, Rating
from players.selectors.roster import current_roster


def characters() -> list[Character]:
    """The roster, in display order."""
    return list(current_roster().characters)


def roster_characters() -> dict[int, Character]:
    """The characters by id (players.selectors.roster): rows that name a character by id
    need no join for it."""
    return current_roster().by_id


def _shown(as_owner: bool) -> Q:
    """Ratings of visible players; to their signed-in owner a private player's too (an
    operator's hide still holds)."""
    return ~(rules.withdrawn if as_owner else rules.hidden)("player__")


def best_character_code(player_id: str, *, as_owner: bool = False) -> str | None:
    """The code of a visible player's best character: highest value - 3 * deviation."""
    return (
        Rating.objects.filter(_shown(as_owner), player_id=player_id)
        .order_by((F("value") - 3 * F("deviation")).desc(), "character_id")
        .values_list("character__code", flat=True)
        .first()
    )


def rating_of(player_id: str, character: Character) -> Rating | None:
    """A visible player's rating on a character, with player, best win and characters
    (`_with_roster_characters`)."""
    shown = Rating.objects.filter(_shown(False), player_id=player_id, character=character)
    return next(iter(_with_roster_characters(shown[:1])), None)


@dataclass(frozen=True)
class RatingOverview:
    """What a profile shows about one rating besides its history."""

    rating: Rating
    ratings: list[Rating]  # all the player's ratings, this one included, most played first
    past_names: list[PlayerName]
    matchups: list[PlayerMatchup]

    @property
    def best_win_hidden(self) -> bool:
        opponent = self.rating.best_win_opponent
        return opponent is not None and rules.is_hidden(opponent)


def rating_overview(
    player_id: str, character_code: str, *, as_owner: bool = False
) -> RatingOverview | None:
    """A rating with the player's other ratings, past names and matchups (three queries:
    the ratings come in one, as a player has few; characters from the roster)."""
    ratings = player_ratings(player_id, as_owner=as_owner)
    code = character_code.upper()
    rating = next((r for r in ratings if r.character.code.upper() == code), None)
    if rating is None:
        return None
    past_names = list(
        PlayerName.objects.filter(player_id=player_id)
        .exclude(name=rating.player.name)
        .order_by("-last_seen")
    )
    matchups = list(PlayerMatchup.objects.filter(rating=rating).order_by("opponent_character_id"))
    roster = roster_characters()
    for matchup in matchups:
        matchup.opponent_character = roster[matchup.opponent_character_id]
    return RatingOverview(rating, ratings, past_names, matchups)


def player_ratings(player_id: str, *, as_owner: bool = False) -> list[Rating]:
    """A visible player's ratings, most played first ([] for another player), with the
    player, the best win's opponent (or none) and both characters, from the roster."""
    return _with_roster_characters(
        Rating.objects.filter(_shown(as_owner), player_id=player_id).order_by(
            -(F("wins") + F("losses")), "character_id"
        )
    )


def _with_roster_characters(ratings: QuerySet[Rating]) -> list[Rating]:
    """The ratings with their player and best win's opponent, both characters from the
    roster: a join of each costs the query's compiling more than its reading."""
    found = list(ratings.select_related("player", "best_win_opponent"))
    roster = roster_characters()
    for rating in found:
        rating.character = roster[rating.character_id]
        if rating.best_win_character_id is not None:
            rating.best_win_character = roster[rating.best_win_character_id]
    return found


def character_by_key(key: str) -> Character | None:
    """A character by its short code (any case) or its integer id, as API URLs give it;
    from the roster of the generation, so that no API request queries the table for it."""
    return next(
        (
            c
            for c in roster_characters().values()
            if c.code.upper() == key.upper() or str(c.id) == key
        ),
        None,
    )


@dataclass(frozen=True)
class PlayerDetail:
    """A player with every rating (most played first) and every past name."""

    player: Player
    ratings: list[Rating]
    past_names: list[PlayerName]


def player_detail(player_id: str) -> PlayerDetail | None:
    """A visible player with all their ratings and past names (three queries)."""
    player = Player.objects.visible().filter(id=player_id).first()
    if player is None:
        return None
    ratings = list(
        player.ratings.select_related("character").order_by(
            -(F("wins") + F("losses")), "character_id"
        )
    )
    past_names = list(player.names.exclude(name=player.name).order_by("-last_seen"))
    return PlayerDetail(player, ratings, past_names)
