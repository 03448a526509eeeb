from datetime import UTC, datetime
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.simulation.league import DEFAULT_DAYS, DEFAULT_START, write_league


def _start(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Command(BaseCommand):
    help = (
        "Write a simulated league's replays (DESIGN section 5 format) and its hidden skills "
        "(<out>.skills.csv). The same arguments give the same files."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--games", type=int, required=True)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--out", type=Path, required=True, help="FILE.jsonl or FILE.jsonl.gz")
        parser.add_argument("--days", type=float, default=DEFAULT_DAYS, help="season length")
        parser.add_argument(
            "--start",
            type=_start,
            default=DEFAULT_START,
            help=f"ISO date of the first game (default {DEFAULT_START.date()}); pick a recent "
            "date for ratings that are not yet decayed today",
        )

    def handle(
        self,
        *args,
        players: int,
        games: int,
        seed: int,
        out: Path,
        days: float,
        start: datetime,
        **options,
    ) -> None:
        if players < 2 or games < 0 or days <= 0:
            raise CommandError("need at least 2 players, no negative games and a positive --days")
        try:
            written = write_league(out, players, games, seed, start=start, days=days)
        except ValueError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"wrote {written} games among {players} players to {out}")
        self.stdout.write(f"hidden skills in {out}.skills.csv")
