from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.models import Match, PendingMatch
from matches.services import bulk
from matches.services.file_import import file_import_source, store_replay_file
from matches.services.ingest import IngestResult, finish_run, start_run
from players.models import Player, PlayerName


class Command(BaseCommand):
    help = (
        "Import replays from JSON Lines (.jsonl, .jsonl.gz) or CSV files; each game is stored once."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument(
            "--rate",
            action="store_true",
            help="rate the pending matches after importing, then refresh (as `refresh` does)",
        )

    def handle(self, *args, paths: list[Path], rate: bool, **options) -> None:
        missing = [str(path) for path in paths if not path.is_file()]
        if missing:
            raise CommandError(f"no such file: {', '.join(missing)}")
        source = file_import_source()
        total = IngestResult()
        for path in paths:
            run = start_run(source)
            try:
                result = store_replay_file(source=source, path=path, run=run)
            except (OSError, ValueError, EOFError) as error:
                finish_run(run, IngestResult(), error=f"{path}: {error}")
                raise CommandError(f"{path}: {error}") from error
            except BaseException as unexpected:  # a bug, the database, ^C: never left running
                finish_run(
                    run, IngestResult(), error=f"{path}: {type(unexpected).__name__}: {unexpected}"
                )
                raise
            finish_run(run, result)
            total.add(result)
            if len(paths) > 1:
                self.stdout.write(f"{path}: {result}")
        self.stdout.write(str(total))
        if total.new and bulk.grown_by_a_tenth(Match, total.new):
            bulk.analyze((Match, PendingMatch, Player, PlayerName))
        if rate:
            # Imported only here: the compiled ledger (numba) takes a third of a second to
            # load, a thirtieth of an import of 200,000 games that does not rate.
            from matches.services.rating.incremental import rate_pending_matches
            from matches.services.refresh import refresh_site

            run = rate_pending_matches(batch_size=50_000, wait=True)
            self.stdout.write(f"rated {run.rated} matches, {run.counted} counted")
            refresh_site()
            self.stdout.write("refreshed ratings, ranks and statistics")
