"""Test data through the real pipeline: replays are stored, rated and refreshed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import file_import_source, store_replays
from matches.services.rating import rate_pending_matches
from matches.services.statistics import refresh_statistics
from matches.simulation.league import LeagueSimulator

START = datetime(2026, 9, 1, tzinfo=UTC)
DAYS = 30
END = START + timedelta(days=DAYS)  # the simulated games end before this; extra ones may follow


@dataclass(frozen=True)
class SeededLeague:
    replays: list[dict]
    ended_at: datetime


def rate_replays(replays: list[dict]) -> datetime:
    """Store and rate `replays`, then refresh ranks and statistics as of the last one
    (so that ratings are not decayed to today); returns that moment."""
    store_replays(source=file_import_source(), replays=iter_replay_payloads(replays))
    rate_pending_matches()
    ended_at = max(
        moment if isinstance(moment, datetime) else datetime.fromisoformat(moment)
        for moment in (r["played_at"] for r in replays)
    )
    refresh_statistics(now=ended_at)
    return ended_at


def seed_league(
    *, players: int, games: int, seed: int = 7, extra: list[dict] | None = None
) -> SeededLeague:
    """`games` simulated games spread over DAYS days plus `extra` replays, rated."""
    simulator = LeagueSimulator(players, seed, START, rate=games / (DAYS * 86400))
    replays = list(simulator.games(games)) + (extra or [])
    return SeededLeague(replays, rate_replays(replays))
