import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from web.backups import BackupError, backup, manifest_path


class Command(BaseCommand):
    help = (
        "Dump the whole database to PATH (pg_dump's custom format, one consistent snapshot) "
        "and every table's row count to PATH.manifest.json, which `restore` checks against."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)

    def handle(self, *args, path: Path, **options) -> None:
        started = time.monotonic()
        try:
            counts = backup(path)
        except BackupError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"backed up {len(counts)} tables ({sum(counts.values())} rows) to {path} and "
            f"{manifest_path(path).name} in {time.monotonic() - started:.1f} s"
        )
