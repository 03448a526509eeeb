"""The `directory` source: replay files dropped in a folder are imported once each.

New ``.jsonl``, ``.jsonl.gz`` and ``.csv`` files directly in the folder are imported
in name order, then moved to ``done/``, or to ``failed/`` with a ``<name>.reason``
file when they fail for any reason but the database going away, so one bad file never
blocks the files after it (what was valid before the fault is kept: the replays are
stored a chunk per transaction, and a file put back is stored without duplicates).
Writers should create a file under another name (e.g. ``.part``) and rename it when
complete, so that a half-written file is never picked up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.db import InterfaceError, OperationalError
from django.utils import timezone

from matches.models import IngestRun, ReplaySource
from matches.replays.readers import iter_replay_file
from matches.services.ingest import IngestResult, store_replays

SUFFIXES = (".jsonl", ".jsonl.gz", ".csv")
DONE, FAILED = "done", "failed"


@dataclass(frozen=True)
class DirectorySettings:
    path: str
    max_files: int = 100  # per run

    def validate(self) -> None:
        if not self.path:
            raise ValueError("path must name a folder")
        if self.max_files < 1:
            raise ValueError("max_files must be positive")


def new_files(folder: Path) -> list[Path]:
    return sorted(
        entry
        for entry in folder.iterdir()
        if entry.is_file() and entry.name.lower().endswith(SUFFIXES)
    )


def _move(path: Path, folder: Path) -> Path:
    """Move ``path`` into ``folder``; a name already there gets a timestamp, never overwritten."""
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    if target.exists():
        target = folder / f"{timezone.now():%Y%m%dT%H%M%S%f}-{path.name}"
    return path.replace(target)


def pull(
    source: ReplaySource, settings: DirectorySettings, run: IngestRun, result: IngestResult
) -> str:
    folder = Path(settings.path)
    if not folder.is_dir():
        return f"no such folder: {folder}"
    errors = []
    for path in new_files(folder)[: settings.max_files]:
        try:
            result.add(store_replays(source=source, replays=iter_replay_file(path), run=run))
        except (OperationalError, InterfaceError):
            raise  # the database went away, not the file's fault: it is read at the next pull
        except Exception as error:  # unreadable, or a fault of ours: it costs only this file
            reason = f"{path.name}: {type(error).__name__}: {error}"
            errors.append(reason)
            moved = _move(path, folder / FAILED)
            # backslashreplace: a file name may hold bytes that are not UTF-8.
            moved.with_name(moved.name + ".reason").write_text(
                reason + "\n", encoding="utf-8", errors="backslashreplace"
            )
        else:
            _move(path, folder / DONE)
    return "\n".join(errors)
