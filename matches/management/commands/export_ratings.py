import csv
import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from players.export import EXPORT_FIELDS, exported_ratings, spreadsheet_safe


class Command(BaseCommand):
    help = "Write every visible rating, one line each, as JSON Lines or CSV (the public data dump)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")
        parser.add_argument("--out", type=Path, default=None, help="default: standard output")

    def handle(self, *args, format: str, out: Path | None, **options) -> None:
        if out is None:
            self._write(self.stdout, format)
            return
        with out.open("w", encoding="utf-8", newline="") as stream:
            count = self._write(stream, format)
        self.stderr.write(f"wrote {count} ratings to {out}")

    def _write(self, stream: Any, format: str) -> int:
        if format == "csv":
            writer = csv.DictWriter(stream, fieldnames=EXPORT_FIELDS, lineterminator="\n")
            writer.writeheader()

            def write(row: dict) -> None:
                writer.writerow({name: spreadsheet_safe(value) for name, value in row.items()})

        else:

            def write(row: dict) -> None:
                stream.write(json.dumps(row, ensure_ascii=False) + "\n")

        count = 0
        for row in exported_ratings():
            write(row)
            count += 1
        return count
