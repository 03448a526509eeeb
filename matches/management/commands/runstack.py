from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from types import FrameType

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from web import embedded_db
from web.metrics import empty_multiprocess_folder

STOP_SECONDS = 20  # warm shutdown allowance before a child is killed


class Command(BaseCommand):
    help = (
        "Run the web server, a Celery worker and Celery beat together; Ctrl-C stops all three, "
        "and the embedded PostgreSQL cluster when DATABASE_URL is unset. "
        "The broker is CELERY_BROKER_URL: the local filesystem by default, or Redis."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--addr", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--concurrency", type=int, default=2, help="worker processes")
        parser.add_argument(
            "--gunicorn", action="store_true", help="serve with gunicorn instead of runserver"
        )

    def _commands(self, addr: str, port: int, concurrency: int, gunicorn: bool) -> dict:
        python, celery = sys.executable, [sys.executable, "-m", "celery", "-A", "ratingsite"]
        # The filesystem transport has no broadcast: no gossip, mingle or heartbeats then.
        quiet = (
            ["--without-gossip", "--without-mingle", "--without-heartbeat"]
            if settings.CELERY_BROKER_URL.startswith("filesystem")
            else []
        )
        web = (
            [python, "-m", "gunicorn", "ratingsite.wsgi", "--bind", f"{addr}:{port}"]
            if gunicorn
            else [python, "manage.py", "runserver", "--noreload", f"{addr}:{port}"]
        )
        return {
            "web": web,
            "worker": [
                *celery,
                "worker",
                "--loglevel",
                "INFO",
                "--concurrency",
                str(concurrency),
                *quiet,
            ],
            "beat": [*celery, "beat", "--loglevel", "INFO"],
        }

    def handle(self, *args, addr: str, port: int, concurrency: int, gunicorn: bool, **_) -> None:
        stopping: list[int] = []

        def request_stop(signum: int, frame: FrameType | None) -> None:
            stopping.append(signum)

        signal.signal(signal.SIGINT, request_stop)
        signal.signal(signal.SIGTERM, request_stop)
        self.stdout.write(f"broker: {settings.CELERY_BROKER_URL.split('@')[-1]}")
        if settings.EMBEDDED_POSTGRES_DIR:
            self.stdout.write(f"database: embedded, under {settings.EMBEDDED_POSTGRES_DIR}")
        empty_multiprocess_folder()  # counters start from 0 with the processes
        children: dict[str, subprocess.Popen] = {}
        try:
            for name, argv in self._commands(addr, port, concurrency, gunicorn).items():
                # Own process groups: Ctrl-C reaches runstack only, which stops each child in
                # turn (a Celery worker stops its pool itself) and kills what is left.
                children[name] = subprocess.Popen(argv, start_new_session=True)
                self.stdout.write(f"started {name} (pid {children[name].pid}): {' '.join(argv)}")
            self.stdout.flush()
            while not stopping:
                exited = [name for name, child in children.items() if child.poll() is not None]
                if exited:
                    raise CommandError(f"{', '.join(exited)} stopped; stopping the others")
                time.sleep(0.2)
            self.stdout.write("stopping")
        finally:
            _stop_all(children)
            if settings.EMBEDDED_POSTGRES_DIR:
                # Started for this site by the settings: it goes with the processes using it.
                embedded_db.stop(settings.EMBEDDED_POSTGRES_DIR)
                self.stdout.write(f"stopped the database under {settings.EMBEDDED_POSTGRES_DIR}")


def _stop_all(children: dict[str, subprocess.Popen]) -> None:
    for child in children.values():
        if child.poll() is None:
            child.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for child in children.values():
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=max(0.0, deadline - time.monotonic()))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)  # whatever is left of it, its pool included
        child.wait()
