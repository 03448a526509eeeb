import os
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from web.backups import BackupError, restore
from web.generation import bump_generation


class Command(BaseCommand):
    help = (
        "Restore a backup made by `backup` into the configured database, which must be empty, "
        "then check every table's row count against the backup's manifest."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument(
            "--jobs", type=int, default=min(4, os.cpu_count() or 1), help="pg_restore's workers"
        )

    def handle(self, *args, path: Path, jobs: int, **options) -> None:
        started = time.monotonic()
        try:
            counts = restore(path, jobs=jobs)
        except BackupError as error:
            raise CommandError(str(error)) from error
        bump_generation()  # pages cached from another database must not be served
        self.stdout.write(
            f"restored {len(counts)} tables ({sum(counts.values())} rows) from {path}, every "
            f"count as backed up, in {time.monotonic() - started:.1f} s"
        )
