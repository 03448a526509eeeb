"""A Celery worker whose rating run stops inside a chosen batch: the crash tests' barrier.

Run as ``python tests/worker/paused_worker.py worker ...`` (the arguments of
``celery worker``). When the worker's rating run has written the ratings of batch
``PAUSE_AT_BATCH`` (its transaction open, the writer lock held), it creates
``PAUSED_FILE`` and waits until ``RESUME_FILE`` exists: a test kills it or cuts its
connections at that point, so the fault lands mid-batch on any machine, at any load.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any


def pause_inside_batch(pause_at: int, paused: Path, resume: Path) -> None:
    """Wrap the rating run's write of a batch's ratings so that batch ``pause_at`` waits."""
    from matches.services.rating import incremental

    write_ratings = incremental.write_ratings
    batches = 0

    def write_ratings_then_wait(*args: Any, **kwargs: Any) -> None:
        nonlocal batches
        write_ratings(*args, **kwargs)
        batches += 1
        if batches == pause_at:
            paused.touch()
            while not resume.exists():
                time.sleep(0.02)

    incremental.write_ratings = write_ratings_then_wait


def main() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")
    django.setup()
    pause_inside_batch(
        int(os.environ["PAUSE_AT_BATCH"]),
        Path(os.environ["PAUSED_FILE"]),
        Path(os.environ["RESUME_FILE"]),
    )
    from ratingsite.celery import app

    app.worker_main(sys.argv[1:])


if __name__ == "__main__":
    main()
