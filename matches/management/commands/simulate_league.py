from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from matches.models import Season
from matches.simulation.league import (
    DEFAULT_DAYS,
    RELEASE_OPTION,
    RETIRE_OPTION,
    PlantedRings,
    SimulatedPatch,
    league_seasons,
    parse_release,
    write_league,
)


def _moment(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _patch(text: str) -> tuple[str, float]:
    """NAME@DAYS: a patch going live DAYS after the league's start."""
    name, _, days = text.rpartition("@")
    try:
        return name, float(days)
    except ValueError:
        raise ValueError(f"a patch is NAME@DAYS, not {text!r}") from None


class Command(BaseCommand):
    help = (
        "Write a simulated league's replays (docs/replay-format.md), its hidden skills "
        "(<out>.skills.csv), matchup offsets (<out>.matchups.csv; with --patch, every patch's "
        "in <out>.patches.csv), with --release when each late character came "
        "(<out>.releases.csv) and with --season-days its seasons (<out>.seasons.csv). By "
        "default the league "
        "ends now, so that its ratings are current once rated; give --start or --end for "
        "files that the same arguments reproduce."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--games", type=int, required=True)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--out", type=Path, required=True, help="FILE.jsonl or FILE.jsonl.gz")
        parser.add_argument("--days", type=float, default=DEFAULT_DAYS, help="season length")
        parser.add_argument(
            "--patch",
            type=_patch,
            action="append",
            default=[],
            dest="patches",
            metavar="NAME@DAYS",
            help="a patch that changes the hidden matchups DAYS after the start (repeatable); "
            "its games report NAME as their version",
        )
        parser.add_argument("--release", **RELEASE_OPTION)
        parser.add_argument("--retire", **RETIRE_OPTION)
        parser.add_argument(
            "--rings",
            type=int,
            default=0,
            help="plant this many win-trading rings (docs/integrity.md): <out>.rings.csv",
        )
        parser.add_argument(
            "--season-days",
            type=int,
            help="cut the league into seasons of this many days: <out>.seasons.csv",
        )
        parser.add_argument(
            "--alternates",
            type=int,
            default=0,
            help="plant this many alternate accounts of strong players: <out>.alternates.csv",
        )
        parser.add_argument(
            "--create-seasons",
            action="store_true",
            help="also add those seasons to the site (README.md#seasons); archived ones stay",
        )
        when = parser.add_mutually_exclusive_group()
        when.add_argument("--start", type=_moment, help="ISO date or time of the first game")
        when.add_argument(
            "--end", type=_moment, help="ISO date or time the season ends (default: now)"
        )

    def handle(
        self,
        *args,
        players: int,
        games: int,
        seed: int,
        out: Path,
        days: float,
        start: datetime | None,
        end: datetime | None,
        patches: list[tuple[str, float]],
        season_days: int | None,
        create_seasons: bool,
        **options,
    ) -> None:
        if players < 2 or games < 0 or days <= 0:
            raise CommandError("need at least 2 players, no negative games and a positive --days")
        if start is None:
            start = (end or timezone.now().replace(microsecond=0)) - timedelta(days=days)
        try:
            plan = [SimulatedPatch(name, start + timedelta(days=at)) for name, at in patches]
            releases = dict(map(parse_release, options["release"]))
            retirements = dict(map(parse_release, options["retire"]))
            written = write_league(
                out,
                players,
                games,
                seed,
                start=start,
                days=days,
                patches=plan,
                releases=releases,
                retirements=retirements,
                season_days=season_days,
                alternates=options["alternates"],
                rings=PlantedRings(count=options["rings"]),
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"wrote {written} games among {players} players to {out}")
        self.stdout.write(f"hidden skills in {out}.skills.csv, matchups in {out}.matchups.csv")
        if patches:
            self.stdout.write(f"each patch's matchups in {out}.patches.csv")
        if options["rings"]:
            self.stdout.write(f"the planted win-trading rings in {out}.rings.csv")
        if releases:
            self.stdout.write(f"release times in {out}.releases.csv")
        if retirements:
            self.stdout.write(f"retirement times in {out}.retirements.csv")
        if season_days is None:
            return
        self.stdout.write(f"seasons in {out}.seasons.csv")
        if create_seasons:
            archived = set(Season.objects.exclude(archived_at=None).values_list("name", flat=True))
            for name, first, last in league_seasons(start, days, season_days):
                if name not in archived:
                    Season.objects.update_or_create(
                        name=name, defaults={"start": first, "end": last}
                    )
            self.stdout.write("seasons added to the site")
