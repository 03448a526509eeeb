"""Notable games (`/recent` and `/api/v1/recent/`): what the periodic refresh stored
(matches.services.notable_games), read as one row."""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from matches.models import SiteStatistic
from players import rules
from players.models import Player

NOTABLE_GAMES_KEY = "notable_games"


class NotableSide(NamedTuple):
    """A rating as a notable game shows it: its player, character and pre-game value (a
    set's: the mean over its games), with its wins in a set."""

    player_id: str
    name: str
    platform: str
    character: str
    character_name: str
    value: float
    wins: int | None = None


class Upset(NamedTuple):
    match_id: int
    played_at: datetime
    chance: float  # the winner's chance shown before the game
    winner: NotableSide
    loser: NotableSide


class NotableSet(NamedTuple):
    """Every game between two ratings in the window."""

    last_played_at: datetime
    games: int
    mean_value: float
    a: NotableSide
    b: NotableSide


class Newcomer(NamedTuple):
    player_id: str
    name: str
    platform: str
    first_seen: datetime
    character: str
    character_name: str
    value: float
    deviation: float
    games: int


class NotableGames(NamedTuple):
    since: datetime
    until: datetime
    upsets: list[Upset]
    sets: list[NotableSet]
    newcomers: list[Newcomer]
    computed_at: datetime


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _side(data: dict[str, Any]) -> NotableSide:
    return NotableSide(**data)


def _flagged_since(data: dict[str, Any]) -> set[str]:
    """The players of the stored lists flagged since the refresh (a player hidden or
    marked a cheater shows nowhere at once, before the recompute their flag queues has
    refreshed the lists): one lookup of at most a few dozen ids by primary key."""
    shown = {n["player_id"] for n in data["newcomers"]} | {
        side["player_id"]
        for entry in [*data["upsets"], *data["sets"]]
        for side in (entry.get("winner") or entry["a"], entry.get("loser") or entry["b"])
    }
    return set(Player.objects.filter(rules.flagged(), id__in=shown).values_list("id", flat=True))


def notable_games() -> NotableGames | None:
    """The day's notable games as of the latest refresh, without players flagged since;
    None before the first."""
    row = SiteStatistic.objects.filter(key=NOTABLE_GAMES_KEY).first()
    if row is None:
        return None
    data = row.data
    flagged = _flagged_since(data)
    if flagged:
        data = {
            **data,
            "upsets": [
                u
                for u in data["upsets"]
                if not {u["winner"]["player_id"], u["loser"]["player_id"]} & flagged
            ],
            "sets": [
                s for s in data["sets"] if not {s["a"]["player_id"], s["b"]["player_id"]} & flagged
            ],
            "newcomers": [n for n in data["newcomers"] if n["player_id"] not in flagged],
        }
    return NotableGames(
        since=_moment(data["since"]),
        until=_moment(data["until"]),
        upsets=[
            Upset(
                u["match_id"],
                _moment(u["played_at"]),
                u["chance"],
                _side(u["winner"]),
                _side(u["loser"]),
            )
            for u in data["upsets"]
        ],
        sets=[
            NotableSet(
                _moment(s["last_played_at"]),
                s["games"],
                s["mean_value"],
                _side(s["a"]),
                _side(s["b"]),
            )
            for s in data["sets"]
        ],
        newcomers=[
            Newcomer(**{**n, "first_seen": _moment(n["first_seen"])}) for n in data["newcomers"]
        ],
        computed_at=row.computed_at,
    )
