from __future__ import annotations

from datetime import datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from matches.simulation.league import (
    RELEASE_OPTION,
    RETIRE_OPTION,
    LeagueSimulator,
    parse_release,
)
from matches.sources.feed import LeagueFeed, feed_server


class Command(BaseCommand):
    help = (
        "Serve a live simulated league on 127.0.0.1 in the replay feed format "
        "(GET /?after=CURSOR&limit=N), for the http source."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, required=True, help="0 picks a free port")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--rate", type=float, default=1.0, help="games per second")
        parser.add_argument("--players", type=int, default=10_000)
        parser.add_argument(
            "--start",
            type=datetime.fromisoformat,
            default=None,
            help="when game 0 is played (ISO 8601 with an offset); default: now",
        )
        parser.add_argument("--release", **RELEASE_OPTION)
        parser.add_argument("--retire", **RETIRE_OPTION)

    def handle(self, *args, port: int, seed: int, rate: float, players: int, **options) -> None:
        start = options["start"] or timezone.now().replace(microsecond=0)
        try:
            releases = dict(map(parse_release, options["release"]))
            retirements = dict(map(parse_release, options["retire"]))
            simulator = LeagueSimulator(
                players, seed, start, rate=rate, releases=releases, retirements=retirements
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        server = feed_server(LeagueFeed(simulator), port, log=options["verbosity"] > 1)
        host, bound = server.server_address[:2]
        self.stdout.write(
            f"serving {players} players at {rate:g} games/s from {start.isoformat()} "
            f"on http://{host}:{bound}/",
        )
        self.stdout.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
