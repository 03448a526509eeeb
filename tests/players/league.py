"""A seeded league through the real pipeline: simulate, ingest, rate, refresh."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import file_import_source, store_replays
from matches.services.rating import rate_pending_matches
from matches.services.statistics import refresh_statistics
from matches.simulation.league import LeagueSimulator

START = datetime(2026, 9, 1, tzinfo=UTC)


@dataclass(frozen=True)
class SeededLeague:
    replays: list[dict]
    ended_at: datetime


def seed_league(
    *, players: int, games: int, seed: int = 7, extra: list[dict] | None = None
) -> SeededLeague:
    """`games` simulated games (about 60 a day) plus `extra` replays, rated and refreshed
    as of the last game, so that ranks do not decay away."""
    simulator = LeagueSimulator(players, seed, START, rate=games / (30 * 86400))
    replays = list(simulator.games(games)) + (extra or [])
    store_replays(source=file_import_source(), replays=iter_replay_payloads(replays))
    rate_pending_matches()
    ended_at = max(datetime.fromisoformat(r["played_at"]) for r in replays)
    refresh_statistics(now=ended_at)
    return SeededLeague(replays, ended_at)
