"""The `simulator` source: a live simulated league that plays games as real time passes.

The league is a pure function of its settings (matches.simulation.league), so the
source keeps only those settings and, as its cursor, the number of games stored so
far. Building a large league takes a moment, so each process keeps the leagues it
built.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache

from django.utils import timezone

from matches.models import IngestRun, ReplaySource
from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import IngestResult
from matches.simulation.league import LeagueSimulator, parse_release
from matches.sources.base import store_page
from players.seed_roster import SEED_CODES
from players.selectors.roster import current_roster


@dataclass(frozen=True)
class SimulatorSettings:
    start: str  # ISO 8601 with an offset: when game 0 is played
    players: int = 2000
    seed: int = 1
    rate: float = 0.2  # games per second
    page_size: int = 5000  # games per transaction
    max_games: int = 50_000  # per run
    # Characters released mid-league, "CODE=DAYS,..." (docs/roster.md#the-simulator): a
    # rehearsal of release day on a live site.
    releases: str = ""
    # Characters retired mid-league, "CODE=DAYS,...": no game plays them from then on.
    retirements: str = ""

    def validate(self) -> None:
        if self.players < 2 or not self.rate > 0 or self.page_size < 1 or self.max_games < 1:
            raise ValueError("players must be at least 2 and rate, page_size, max_games positive")
        self.start_time()
        self.release_days()
        self.retirement_days()

    def release_days(self) -> dict[str, float]:
        return dict(parse_release(text) for text in self.releases.split(",") if text)

    def retirement_days(self) -> dict[str, float]:
        return dict(parse_release(text) for text in self.retirements.split(",") if text)

    def start_time(self) -> datetime:
        moment = datetime.fromisoformat(self.start)
        if moment.tzinfo is None:
            raise ValueError(f"start needs an offset: {self.start!r}")
        return moment


_lock = threading.Lock()  # a league is stateful: one pull at a time per process uses it


@lru_cache(maxsize=4)
def league(
    players: int, seed: int, start: datetime, rate: float, releases: str, retirements: str
) -> LeagueSimulator:
    settings = SimulatorSettings(start.isoformat(), releases=releases, retirements=retirements)
    return LeagueSimulator(
        players,
        seed,
        start,
        rate=rate,
        releases=settings.release_days(),
        retirements=settings.retirement_days(),
    )


def _retire_as_the_roster_does(
    source: ReplaySource, settings: SimulatorSettings, now: datetime
) -> SimulatorSettings:
    """A character retired in the admin since the last pull is retired in the league from
    `now` on (docs/roster.md#the-simulator): written into the source's `retirements`, so
    that the league stays a pure function of its settings (unticking it later does not
    bring it back to the league)."""
    retired = settings.retirement_days()
    played = {*SEED_CODES, *settings.release_days()}
    newly = [
        character.code
        for character in current_roster().characters
        if character.retired and character.code in played and character.code not in retired
    ]
    if not newly:
        return settings
    day = max(0.0, (now - settings.start_time()).total_seconds() / 86400)
    text = ",".join([*filter(None, [settings.retirements]), *(f"{c}={day:.6f}" for c in newly)])
    source.settings = {**source.settings, "retirements": text}
    source.save(update_fields=["settings"])
    return replace(settings, retirements=text)


def pull(
    source: ReplaySource, settings: SimulatorSettings, run: IngestRun, result: IngestResult
) -> str:
    now = timezone.now()
    settings = _retire_as_the_roster_does(source, settings, now)
    simulator = league(
        settings.players,
        settings.seed,
        settings.start_time(),
        settings.rate,
        settings.releases,
        settings.retirements,
    )
    with _lock:
        while result.read < settings.max_games:
            after = source.cursor or "0"
            if simulator.position != int(after):
                simulator.seek(int(after))
            games = simulator.games_until(now, settings.page_size)
            if not games:
                break
            result.add(
                store_page(
                    source=source,
                    run=run,
                    replays=iter_replay_payloads(games),
                    after=source.cursor,
                    next_cursor=str(simulator.position),
                )
            )
    return ""
