"""Example payloads for the API schema (histories, games, matchups, forecasts, statistics)."""

from __future__ import annotations

from matches.services.evaluation import NOTES
from players.api.examples import KY, OPPONENT, OPPONENT_ID, PLAYER, PLAYER_ID, SOL, rating

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
            "win_probability": 0.5515,
            "model_win_probability": 0.5515,
        }
    ],
}

_MIRROR = {
    "mirror": True,
    "offset": 0.0,
    "standard_error": 0.0,
    "probability": 0.5,
    "interval_low": 0.5,
    "interval_high": 0.5,
    "uncertain": False,
    "games": 0,
    "wins": 0,
    "losses": 0,
    "expected_wins": 0.0,
    "change": None,
    "change_low": None,
    "change_high": None,
}

MATCHUPS = {
    "bracket": "all",
    "patch": "1.29",
    "previous_patch": "1.28",
    "characters": [SOL, KY],
    "rows": [
        {
            "character": SOL,
            "average": 0.5312,
            "cells": [
                {"opponent": "SO", **_MIRROR},
                {
                    "opponent": "KY",
                    "mirror": False,
                    "offset": 21.7,
                    "standard_error": 7.9,
                    "probability": 0.5312,
                    "interval_low": 0.5089,
                    "interval_high": 0.5533,
                    "uncertain": False,
                    "games": 8331,
                    "wins": 4410,
                    "losses": 3921,
                    "expected_wins": 4172.6,
                    "change": 0.0241,
                    "change_low": -0.0062,
                    "change_high": 0.0544,
                },
            ],
        },
        {
            "character": KY,
            "average": 0.4688,
            "cells": [
                {
                    "opponent": "SO",
                    "mirror": False,
                    "offset": -21.7,
                    "standard_error": 7.9,
                    "probability": 0.4688,
                    "interval_low": 0.4467,
                    "interval_high": 0.4911,
                    "uncertain": False,
                    "games": 8331,
                    "wins": 3921,
                    "losses": 4410,
                    "expected_wins": 4158.4,
                    "change": -0.0241,
                    "change_low": -0.0544,
                    "change_high": 0.0062,
                },
                {"opponent": "KY", **_MIRROR},
            ],
        },
    ],
}

RATING_MATCHUPS = {
    "player": PLAYER,
    "character": SOL,
    "matchups": [
        {
            "opponent_character": SOL,
            "offset": 41.45,
            "standard_error": 38.73,
            "probability": 0.5594,
            "interval_low": 0.4506,
            "interval_high": 0.6627,
            "uncertain": True,
            "games": 73,
            "wins": 40,
            "losses": 33,
            "expected_wins": 35.2,
        },
        {
            "opponent_character": KY,
            "offset": -30.32,
            "standard_error": 42.61,
            "probability": 0.4565,
            "interval_low": 0.3418,
            "interval_high": 0.576,
            "uncertain": True,
            "games": 56,
            "wins": 25,
            "losses": 31,
            "expected_wins": 27.9,
        },
    ],
    "overall": {
        "offset": 9.79,
        "standard_error": 29.92,
        "probability": 0.5141,
        "interval_low": 0.4302,
        "interval_high": 0.5972,
        "uncertain": True,
        "games": 129,
        "wins": 65,
        "losses": 64,
        "expected_wins": 63.1,
    },
}

FORECAST = {
    "a": {
        "player": None,
        "character": None,
        "rating": rating(1700.0, 80.0),
        "win_probability": 0.7212,
        "win_probability_display": "72.1%",
        "model_win_probability": 0.7212,
        "after_win": {"rating": rating(1708.29, 78.82), "change": 8.29, "change_display": "+8.3"},
        "after_loss": {
            "rating": rating(1678.09, 78.82),
            "change": -21.91,
            "change_display": "\u221221.9",
        },
    },
    "b": {
        "player": None,
        "character": None,
        "rating": rating(1500.0, 200.0),
        "win_probability": 0.2788,
        "win_probability_display": "27.9%",
        "model_win_probability": 0.2788,
        "after_win": {
            "rating": rating(1636.51, 180.23),
            "change": 136.51,
            "change_display": "+136.5",
        },
        "after_loss": {
            "rating": rating(1455.28, 180.23),
            "change": -44.72,
            "change_display": "\u221244.7",
        },
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
        "period_days": 7,
        "brackets": [{"key": "all", "label": "All"}, {"key": "1800", "label": "1800+"}],
        "rows": [
            {
                "character": "SO",
                "name": "Sol",
                "shares": {"all": 0.081, "1800": 0.064},
                "changes": {"all": 0.004, "1800": -0.011},
            }
        ],
    },
    "percentiles": [
        {"top": 1, "rank": 154, "value": 2031.4},
        {"top": 50, "rank": 7660, "value": 1561.2},
    ],
    "activity": {
        "hour": {"players": 310, "games": 360},
        "day": {"players": 4120, "games": 8640},
        "week": {"players": 11020, "games": 60480},
    },
    "patch_rating_distribution": {
        "bin_width": 50,
        "bins": [{"from": 1500.0, "to": 1550.0, "count": 640}],
    },
    "fraud_index": {
        "minimum_games": 200,
        "brackets": [
            {"key": "all", "label": "All", "floor": None},
            {"key": "1500", "label": "1500+", "floor": 1500.0},
            {"key": "1800", "label": "1800+", "floor": 1800.0},
        ],
        "rows": [
            {
                "character": "SO",
                "name": "Sol Badguy",
                "cells": {
                    "all": {"players": 412, "offset": 21.4},
                    "1500": {"players": 305, "offset": 18.2},
                    "1800": {"players": 41, "offset": 9.7},
                },
            }
        ],
    },
    "inflation": [
        {"week": "2026-11-16", "ratings": 9874, "p10": 1371.5, "median": 1538.0, "p90": 1702.9},
        {"week": "2026-11-23", "ratings": 10212, "p10": 1369.8, "median": 1539.1, "p90": 1706.3},
    ],
}

OPPONENTS = {
    "player": PLAYER,
    "character": SOL,
    "rating": rating(1834.21, 71.05),
    "tier": "Platinum",
    "active_days": 14,
    "opponents": [
        {
            "player": {"id": OPPONENT_ID, "name": "kyo"},
            "character": KY,
            "rating": rating(1836.9, 64.2),
            "tier": "Platinum",
            "win_probability": 0.4963,
            "model_win_probability": 0.4963,
            "quality": 0.9926,
        },
        {
            "player": {"id": "221005231530117702", "name": "Mayship"},
            "character": {"id": 2, "code": "MA", "name": "May"},
            "rating": rating(1828.0, 88.5),
            "tier": None,  # too unsettled to be ranked
            "win_probability": 0.5084,
            "model_win_probability": 0.5084,
            "quality": 0.9832,
        },
    ],
}


def _calibration(*bins: tuple[int, float | None, float | None]) -> list[dict]:
    """Ten calibration rows from (games, mean predicted, observed) per bin."""
    return [
        {"low": n / 10, "high": (n + 1) / 10, "games": games, "predicted": p, "observed": o}
        for n, (games, p, o) in enumerate(bins)
    ]


LAB = {
    "computed_at": "2026-11-21T04:00:12Z",
    "since": None,
    "games": 1000000,
    "excluded_games": 2113,
    "established_min_games": 20,
    "seconds": 61.408,
    "systems": [
        {
            "name": "glicko",
            "note": NOTES["glicko"],
            "overall": {
                "games": 1000000,
                "log_loss": 0.6512,
                "brier": 0.2297,
                "accuracy": 0.6174,
                "calibration": _calibration(
                    (6120, 0.071, 0.083),
                    (20311, 0.158, 0.171),
                    (48207, 0.254, 0.262),
                    (101994, 0.353, 0.358),
                    (323581, 0.453, 0.456),
                    (323420, 0.547, 0.544),
                    (102101, 0.647, 0.641),
                    (48150, 0.746, 0.738),
                    (20233, 0.842, 0.829),
                    (5883, 0.929, 0.917),
                ),
            },
            "established": {
                "games": 912448,
                "log_loss": 0.6487,
                "brier": 0.2286,
                "accuracy": 0.6208,
                "calibration": _calibration(
                    (5301, 0.072, 0.080),
                    (18642, 0.158, 0.168),
                    (44580, 0.254, 0.260),
                    (93771, 0.353, 0.357),
                    (294100, 0.453, 0.455),
                    (293892, 0.547, 0.545),
                    (93690, 0.647, 0.643),
                    (44492, 0.746, 0.741),
                    (18670, 0.842, 0.833),
                    (5310, 0.928, 0.921),
                ),
            },
        },
        {
            "name": "moonstone",
            "note": NOTES["moonstone"],
            "overall": {
                "games": 1000000,
                "log_loss": 0.6791,
                "brier": 0.2431,
                "accuracy": 0.5802,
                "calibration": _calibration(
                    (0, None, None),
                    (0, None, None),
                    (1204, 0.276, 0.301),
                    (60318, 0.367, 0.402),
                    (438226, 0.468, 0.476),
                    (438950, 0.532, 0.524),
                    (60108, 0.633, 0.598),
                    (1194, 0.724, 0.697),
                    (0, None, None),
                    (0, None, None),
                ),
            },
            "established": {
                "games": 912448,
                "log_loss": 0.6779,
                "brier": 0.2425,
                "accuracy": 0.5840,
                "calibration": _calibration(
                    (0, None, None),
                    (0, None, None),
                    (1150, 0.277, 0.305),
                    (56021, 0.367, 0.400),
                    (399120, 0.468, 0.475),
                    (399810, 0.532, 0.525),
                    (55870, 0.633, 0.600),
                    (477, 0.722, 0.694),
                    (0, None, None),
                    (0, None, None),
                ),
            },
        },
    ],
    "calibration": {
        "temperature": 1.087,
        "fitted_at": "2026-11-21T04:00:05Z",
        "games": 100000,
        "log_loss_before": 0.6512,
        "log_loss_after": 0.6506,
        "before": _calibration(
            (613, 0.071, 0.083),
            (2031, 0.158, 0.171),
            (4821, 0.254, 0.262),
            (10199, 0.353, 0.358),
            (32358, 0.453, 0.456),
            (32342, 0.547, 0.544),
            (10210, 0.647, 0.641),
            (4815, 0.746, 0.738),
            (2023, 0.842, 0.829),
            (588, 0.929, 0.917),
        ),
        "after": _calibration(
            (441, 0.080, 0.084),
            (1902, 0.166, 0.169),
            (4731, 0.262, 0.263),
            (10455, 0.360, 0.359),
            (32431, 0.456, 0.456),
            (32419, 0.544, 0.544),
            (10462, 0.640, 0.641),
            (4724, 0.738, 0.737),
            (1900, 0.834, 0.831),
            (535, 0.920, 0.918),
        ),
    },
}


_RECORD = {
    "games": 14,
    "wins": 9,
    "losses": 5,
    "counted": {"wins": 8, "losses": 5},
    "uncounted": {"wins": 1, "losses": 0},
    "pending": {"wins": 0, "losses": 0},
}

HEAD_TO_HEAD = {
    "player": PLAYER,
    "character": SOL,
    "opponent": OPPONENT,
    "opponent_character": KY,
    "record": _RECORD,
    "by_characters": [
        {
            "character": SOL,
            "opponent_character": KY,
            "record": _RECORD,
        }
    ],
    "next_game": {
        **FORECAST,
        "a": {**FORECAST["a"], "player": PLAYER, "character": SOL},
        "b": {**FORECAST["b"], "player": OPPONENT, "character": KY},
    },
    "next": None,
    "sets": [
        {
            "opponent_character": KY,
            "wins": 1,
            "losses": 0,
            "change": 5.81,
            "expected_wins": 0.5515,
            "games": GAME_PAGE["results"],
        }
    ],
}

RIVALS = {
    "player": PLAYER,
    "character": SOL,
    "window": 1000,
    "opponents": [
        {
            "player": OPPONENT,
            "games": 14,
            "wins": 9,
            "losses": 5,
            "head_to_head": f"https://example.org/api/v1/players/{PLAYER_ID}/SO/vs/"
            f"{OPPONENT['id']}/",
        }
    ],
}

_SOL = {
    "player_id": "210611080000000001",
    "name": "Daisy",
    "platform": "pc",
    "character": "SO",
    "character_name": "Sol Badguy",
}
_KY = {
    "player_id": "210611080000000002",
    "name": "Ahiru",
    "platform": "ps",
    "character": "KY",
    "character_name": "Ky Kiske",
}

NOTABLE_GAMES = {
    "computed_at": "2026-11-21T14:00:05Z",
    "since": "2026-11-20T14:00:00Z",
    "until": "2026-11-21T14:00:00Z",
    "upsets": [
        {
            "match_id": 912345,
            "played_at": "2026-11-21T09:12:44Z",
            "chance": 0.061,
            "winner": {**_SOL, "value": 1402.5},
            "loser": {**_KY, "value": 1861.0},
        }
    ],
    "sets": [
        {
            "last_played_at": "2026-11-21T12:40:02Z",
            "games": 5,
            "mean_value": 2104.7,
            "a": {**_SOL, "value": 2121.3, "wins": 3},
            "b": {**_KY, "value": 2088.1, "wins": 2},
        }
    ],
    "newcomers": [
        {
            **_SOL,
            "first_seen": "2026-11-19T22:03:10Z",
            "value": 1733.2,
            "deviation": 71.4,
            "games": 64,
        }
    ],
}


SEASON = {
    "name": "2026-autumn",
    "start": "2026-09-01",
    "end": "2026-11-30",
    "state": "live",
    "archived_at": None,
}

SEASON_PAGE = {
    "season": SEASON,
    "character": None,
    "page": 1,
    "min_games": 10,
    "standings": [
        {
            "rank": 1,
            "player_id": "210611105519744612",
            "name": "Daru",
            "character": {"id": 1, "code": "SO", "name": "Sol Badguy"},
            "value": 1911.4,
            "deviation": 31.2,
            "games": 214,
        }
    ],
    "more": False,
}

PLACEMENT = {
    "ranked": False,
    "flag": None,
    "games_to_rank": 6,
    "idle_since": None,
    "widest": False,
    "opponents_to_rank": 2,
}
