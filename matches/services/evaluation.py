"""The rating systems lab: how well each system predicts stored games
(docs/rating-model.md#the-lab-other-systems-and-tuning).

Every chosen system replays the same stored matches in (played_at, id) order and
predicts each game before it learns the result, so every prediction is one the
system could have made at the time.  Ratings are kept per (player, character), as
the site keeps them.  Games of hidden or cheating players are skipped, as they move
no rating on the site.

Matches are streamed in keyset pages and every system's states live in a list
indexed by a small integer per rating, so memory grows with the number of ratings,
never with the number of games.  The latest report is stored as the SiteStatistic
"lab", which the /lab page and the API read through `latest_lab_report`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from matches.models import Match
from matches.params import glicko_params
from matches.ratings.base import RatingSystem
from matches.ratings.ledger import RatingKey
from matches.ratings.metrics import PredictionMetrics, calibration_rows, json_number
from matches.ratings.registry import FACTORIES, create
from matches.selectors.lab import LAB_STATISTIC
from matches.services.rating.storage import matches_in_order
from matches.services.site_statistic import store_statistic
from players.models import Player
from web.generation import bump_generation

DEFAULT_SYSTEMS: tuple[str, ...] = tuple(FACTORIES)
SITE_SYSTEM = "glicko"  # the system whose probabilities the site shows
# "Established" games: both ratings have at least this many earlier games in the replay.
ESTABLISHED_GAMES = 20
CHUNK_SIZE = 50_000

NOTES = {
    "glicko": "The site's continuous Glicko with this site's settings and counting rule.",
    "glicko2": "Glicko-2 with every game its own rating period; idle time plays no part.",
    "elo": "Elo with K = 32 on the 400-point logistic curve.",
    "trueskill": "Two-player TrueSkill with the published defaults; P(win) from its model.",
    "moonstone": (
        "Moonstone has no probability model: its P(win) here is Elo's logistic curve "
        "on the Moonstone rating difference (400 points for 10:1 odds)."
    ),
}

# A game as the systems see it: (rating index a, rating index b, a's score, epoch
# seconds, kind) with kind one of these.
_WARM_UP, _SCORED, _ESTABLISHED = 0, 1, 2
_Row = tuple[int, int, float, float, int]


def lab_system(name: str) -> RatingSystem[Any]:
    """A system by registry name; the site's Glicko gets the site's settings and counting rule."""
    if name == SITE_SYSTEM:
        return create(name, params=glicko_params(), apply_counting_rule=True)
    return create(name)


@dataclass(slots=True)
class SystemScore:
    """One system's ratings during a replay, and its scores so far."""

    system: RatingSystem[Any]
    overall: PredictionMetrics = field(default_factory=PredictionMetrics)
    established: PredictionMetrics = field(default_factory=PredictionMetrics)
    states: list[Any] = field(default_factory=list)

    def play(self, rows: list[_Row], ratings: int) -> None:
        """Predict each scored game, then learn from every game (the hot loop)."""
        states = self.states
        if len(states) < ratings:
            states.extend([self.system.initial()] * (ratings - len(states)))
        expected = self.system.expected_score
        update = self.system.update
        add = self.overall.add
        add_established = self.established.add
        for a, b, score, at, kind in rows:
            state_a = states[a]
            state_b = states[b]
            if kind:
                probability = expected(state_a, state_b, at)
                add(probability, score)
                if kind == _ESTABLISHED:
                    add_established(probability, score)
            states[a], states[b] = update(state_a, state_b, score, at)


@dataclass(slots=True)
class Replay:
    """The outcome of replaying a history: per-system scores and what was read."""

    systems: list[SystemScore]
    games: int = 0  # games the systems played
    excluded: int = 0  # games skipped: a hidden or cheating player took part


def excluded_players() -> frozenset[str]:
    """Players whose games move no rating on the site."""
    return frozenset(Player.objects.unrated().values_list("id", flat=True))


def history_chunks(
    matches: QuerySet[Match],
    *,
    score_from: int = 0,
    established_games: int = ESTABLISHED_GAMES,
    chunk_size: int = CHUNK_SIZE,
) -> Iterator[tuple[list[_Row], int, int]]:
    """The stored games in time order as the systems see them, a chunk at a time:
    (rows, ratings seen so far, games skipped in this chunk).

    The first `score_from` matches read are marked warm-up (only taught); every later
    game is marked to be scored, and established when both ratings have played
    `established_games` games before it. Games of hidden or cheating players are skipped.
    """
    excluded = excluded_players()
    keys: dict[RatingKey, int] = {}
    played: list[int] = []  # games so far per rating index
    read = 0
    for games in matches_in_order(matches, chunk_size):
        rows: list[_Row] = []
        skipped = 0
        for game in games:
            read += 1
            if game.player_a in excluded or game.player_b in excluded:
                skipped += 1
                continue
            a = keys.setdefault((game.player_a, game.character_a), len(keys))
            b = keys.setdefault((game.player_b, game.character_b), len(keys))
            if len(played) < len(keys):
                played.extend([0] * (len(keys) - len(played)))
            if read <= score_from:
                kind = _WARM_UP
            elif played[a] >= established_games and played[b] >= established_games:
                kind = _ESTABLISHED
            else:
                kind = _SCORED
            played[a] += 1
            played[b] += 1
            rows.append((a, b, 1.0 if game.a_won else 0.0, game.played_at, kind))
        yield rows, len(keys), skipped


def replay(
    systems: Sequence[RatingSystem[Any]],
    matches: QuerySet[Match] | None = None,
    *,
    score_from: int = 0,
    established_games: int = ESTABLISHED_GAMES,
    chunk_size: int = CHUNK_SIZE,
) -> Replay:
    """Replay `matches` (default: all) through every system at once.

    The first `score_from` matches read only teach the systems (a warm-up, as when
    tuning on a held-out later part of the history); every later game is predicted
    and scored before the systems learn its result.
    """
    matches = Match.objects.all() if matches is None else matches
    result = Replay([SystemScore(system) for system in systems])
    chunks = history_chunks(
        matches,
        score_from=score_from,
        established_games=established_games,
        chunk_size=chunk_size,
    )
    for rows, ratings, skipped in chunks:
        for score in result.systems:
            score.play(rows, ratings)
        result.games += len(rows)
        result.excluded += skipped
    return result


def metrics_report(metrics: PredictionMetrics) -> dict[str, Any]:
    """The headline scores and the calibration table, as JSON-ready values."""
    return {
        "games": metrics.count,
        "log_loss": json_number(metrics.log_loss),
        "brier": json_number(metrics.brier),
        "accuracy": json_number(metrics.accuracy),
        "calibration": calibration_rows(metrics.calibration()),
    }


def evaluate(
    *, systems: Iterable[str] = DEFAULT_SYSTEMS, since: datetime | None = None
) -> dict[str, Any]:
    """Score the named systems on the stored matches (from `since` on, ratings starting fresh).

    Unknown system names raise ValueError before anything is read.
    """
    started = time.perf_counter()
    chosen = [lab_system(name) for name in systems]
    matches = Match.objects.all() if since is None else Match.objects.filter(played_at__gte=since)
    result = replay(chosen, matches)
    return {
        "computed_at": timezone.now().isoformat(),
        "since": since.isoformat() if since else None,
        "games": result.games,
        "excluded_games": result.excluded,
        "established_min_games": ESTABLISHED_GAMES,
        "seconds": round(time.perf_counter() - started, 3),
        "systems": [
            {
                "name": score.system.name,
                "note": NOTES.get(score.system.name, ""),
                "overall": metrics_report(score.overall),
                "established": metrics_report(score.established),
            }
            for score in result.systems
        ],
    }


def save_lab_report(report: dict[str, Any]) -> None:
    """Store the report as the latest."""
    store_statistic(LAB_STATISTIC, report)
    bump_generation()  # cached pages and API responses show the new report


def refresh_lab() -> dict[str, Any]:
    """Evaluate every system on the whole history and store it as the latest lab report.

    The periodic task calls this; on a million games it takes a minute or so, so it
    runs daily rather than with every refresh.
    """
    report = evaluate()
    save_lab_report(report)
    return report
