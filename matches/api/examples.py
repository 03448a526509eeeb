"""Example payloads for the API schema (histories, games, matchups, forecasts, statistics)."""

from __future__ import annotations

from players.api.examples import KY, OPPONENT, PLAYER, PLAYER_ID, SOL, rating

HISTORY = {
    "player": PLAYER,
    "character": SOL,
    "daily": False,
    "points": [
        {"at": "2026-11-21T13:58:02Z", "rating": rating(1828.4, 71.9)},
        {"at": "2026-11-21T13:58:02Z", "rating": rating(1834.21, 71.05)},
    ],
}

GAME_PAGE = {
    "next": f"https://example.org/api/v1/players/{PLAYER_ID}/SO/matches/"
    "?cursor=1795787882000000-91348",
    "results": [
        {
            "id": 91352,
            "played_at": "2026-11-21T14:03:11Z",
            "floor": 99,
            "won": True,
            "counted": True,
            "rating": rating(1828.4, 71.9),
            "change": 5.81,
            "opponent": OPPONENT,
            "opponent_character": KY,
            "opponent_rating": rating(1790.2, 88.0),
        }
    ],
}

MATCHUPS = {
    "bracket": "all",
    "characters": [SOL, KY],
    "rows": [
        {
            "character": SOL,
            "average": 0.5312,
            "cells": [
                {
                    "opponent": "SO",
                    "probability": 0.5,
                    "wins": 5120,
                    "losses": 5120,
                    "games": 10240,
                },
                {
                    "opponent": "KY",
                    "probability": 0.5312,
                    "wins": 4410,
                    "losses": 3921,
                    "games": 8331,
                },
            ],
        },
        {
            "character": KY,
            "average": 0.4688,
            "cells": [
                {
                    "opponent": "SO",
                    "probability": 0.4688,
                    "wins": 3921,
                    "losses": 4410,
                    "games": 8331,
                },
                {"opponent": "KY", "probability": 0.5, "wins": 2800, "losses": 2800, "games": 5600},
            ],
        },
    ],
}

FORECAST = {
    "a": {
        "player": None,
        "character": None,
        "rating": rating(1700.0, 80.0),
        "win_probability": 0.7212,
        "after_win": {"rating": rating(1708.29, 78.82), "change": 8.29},
        "after_loss": {"rating": rating(1678.09, 78.82), "change": -21.91},
    },
    "b": {
        "player": None,
        "character": None,
        "rating": rating(1500.0, 200.0),
        "win_probability": 0.2788,
        "after_win": {"rating": rating(1636.51, 180.23), "change": 136.51},
        "after_loss": {"rating": rating(1455.28, 180.23), "change": -44.72},
    },
    "counts": True,
}

STATISTICS = {
    "computed_at": "2026-11-21T14:00:05Z",
    "totals": {
        "games": 1000000,
        "players": 20000,
        "ratings": 41234,
        "ranked": 15320,
        "games_24h": 8640,
    },
    "games_per_day": [{"day": "2026-11-20", "games": 8640}],
    "rating_distribution": {
        "bin_width": 50,
        "bins": [{"from": 1500.0, "to": 1550.0, "count": 812}],
    },
    "floor_distribution": [{"floor": 10, "players": 3120}, {"floor": 99, "players": 410}],
    "popularity": {
        "brackets": [{"key": "all", "label": "All"}, {"key": "1800", "label": "1800+"}],
        "rows": [{"character": "SO", "name": "Sol", "shares": {"all": 0.081, "1800": 0.064}}],
    },
}
