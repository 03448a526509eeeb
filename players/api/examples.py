"""Example payloads for the API schema (players, ratings and rankings)."""

from __future__ import annotations

from players.formatting import rating_text

PLAYER_ID = "230129212655563979"
OPPONENT_ID = "210611080522104011"

SOL = {"id": 0, "code": "SO", "name": "Sol"}
KY = {"id": 1, "code": "KY", "name": "Ky"}
PLAYER = {"id": PLAYER_ID, "name": "Sol Badguy Main", "platform": "pc"}
OPPONENT = {"id": OPPONENT_ID, "name": "kyo", "platform": "ps"}


def rating(value: float, deviation: float) -> dict:
    return {"value": value, "deviation": deviation, "display": rating_text(value, deviation)}


CHARACTERS = {
    "results": [
        {**SOL, "retired": False},
        {**KY, "retired": False},
        {"id": 2, "code": "MA", "name": "May", "retired": False},
    ]
}

RATING_SUMMARY = {
    "character": SOL,
    "rating": rating(1834.21, 71.05),
    "tier": "Platinum",
    "wins": 412,
    "losses": 301,
    "last_played_at": "2026-11-21T14:03:11Z",
}

SEARCH = {
    "results": [
        {
            **PLAYER,
            "matched_name": "Sol Badguy Main",
            "last_seen": "2026-11-21T14:03:11Z",
            "summary_display": "Sol Badguy 1834 ±142 · PC · last seen 2026-11-21",
            "cheater": False,
            "ratings": [
                RATING_SUMMARY,
                {
                    **RATING_SUMMARY,
                    "character": KY,
                    "rating": rating(1502.4, 160.3),
                    "tier": None,  # too unsettled to be ranked
                    "wins": 4,
                    "losses": 6,
                },
            ],
        }
    ],
    "more_match": False,
}

PLAYER_DETAIL = {
    **PLAYER,
    "floor": 99,
    "first_seen": "2026-01-05T09:12:40Z",
    "last_seen": "2026-11-21T14:03:11Z",
    "supporter": False,
    "cheater": False,
    "ratings": [RATING_SUMMARY],
    "past_names": [
        {
            "name": "SolMain",
            "first_seen": "2026-01-05T09:12:40Z",
            "last_seen": "2026-03-02T20:41:07Z",
        }
    ],
}

RATING = {
    **RATING_SUMMARY,
    "player": PLAYER,
    "global_rank": 153,
    "character_rank": 12,
    "peak": {"rating": rating(1870.5, 66.2), "at": "2026-10-02T21:17:45Z"},
    "best_win": {
        "opponent": OPPONENT,
        "character": KY,
        "rating": rating(2011.8, 58.4),
        "at": "2026-09-14T19:02:33Z",
    },
}

RANKING_ROW = {
    "rank": 1,
    "player": PLAYER,
    "character": SOL,
    "rating": rating(2204.6, 52.1),
    "tier": "Master",
    "wins": 1204,
    "losses": 598,
}
