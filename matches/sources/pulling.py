"""Pulling replay sources: each enabled source in turn, and managing the sources.

A pull opens an IngestRun, lets the source's kind fetch and store what is new
(matches.sources), and closes the run with the counts and the error that stopped it,
if any. An unexpected exception (the database going away, say) is recorded on the
run as far as possible and raised, so the caller sees it; so is the task's soft time
limit, which stops the whole pull (the pages stored before it stay, each with its cursor).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any, NamedTuple

from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from matches.models import IngestRun, ReplaySource
from matches.services.ingest import IngestResult, finish_run, start_run
from matches.sources import directory, http, simulator
from matches.sources.base import CursorMoved, read_settings
from web import logs
from web.logs import log_context

logger = logging.getLogger(__name__)


class SourceKind(NamedTuple):
    settings: type
    pull: Callable[[ReplaySource, Any, IngestRun, IngestResult], str]


KINDS: dict[str, SourceKind] = {
    ReplaySource.Kind.HTTP: SourceKind(http.HttpSettings, http.pull),
    ReplaySource.Kind.DIRECTORY: SourceKind(directory.DirectorySettings, directory.pull),
    ReplaySource.Kind.SIMULATOR: SourceKind(simulator.SimulatorSettings, simulator.pull),
}
# The database going away (a restart, a failover).
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
# What stops a pull of every source, not just of the one it happens in.
STOPS_ALL_SOURCES = (*DATABASE_UNAVAILABLE, SoftTimeLimitExceeded)
SIMULATOR_SOURCE = "simulated-league"
SIMULATOR_BACKLOG = timedelta(days=1)  # a fresh site starts with a day of games to rate


def pull_source(source: ReplaySource) -> IngestRun:
    """Fetch and store what is new in one source; returns its finished IngestRun."""
    run = start_run(source)
    result = IngestResult()
    kind = KINDS[source.kind]
    try:
        settings = read_settings(kind.settings, source.settings)
    except ValueError as invalid:  # edited into something the kind cannot use
        return finish_run(run, result, error=f"invalid settings: {invalid}")
    try:
        error = kind.pull(source, settings, run, result)
    except CursorMoved as moved:
        error = f"stopped: another pull got here first ({moved})"
    except SoftTimeLimitExceeded:
        finish_run(run, result, error="stopped: the pull task reached its time limit")
        raise
    except Exception as unexpected:
        finish_run(run, result, error=f"{type(unexpected).__name__}: {unexpected}")
        raise
    return finish_run(run, result, error=error)


def pull_enabled_sources() -> list[IngestRun]:
    """Pull every enabled source in turn; one failing source does not stop the others, but
    the database failing or the task's time limit stops them all (the caller retries the
    whole pull later)."""
    runs = []
    for source in ReplaySource.objects.filter(enabled=True, kind__in=list(KINDS)).order_by("id"):
        with log_context(logs.source, source.name):
            try:
                runs.append(pull_source(source))
            except STOPS_ALL_SOURCES:
                raise
            except Exception:
                logger.exception("pulling %s failed", source.name)
    return runs


def follow_enabled_sources(*, seconds: float, pause: float, stored: Callable[[], None]) -> int:
    """Pull every enabled source, then again every ``pause`` seconds for up to ``seconds``
    (a live feed); calls ``stored`` after each pull that stored games and returns how
    many new games were stored.

    Following a feed this way puts its games a pause, not a beat interval, from being
    rated. One task follows at a time (beat sends the next once this one is over), so no
    pulls pile up; with no ``seconds`` it is a single pull.
    """
    ends = time.monotonic() + seconds
    total = 0
    while True:
        new = sum(run.new for run in pull_enabled_sources())
        total += new
        if new:
            stored()
        if time.monotonic() + pause >= ends:
            return total
        time.sleep(pause)


def validate_settings(kind: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings as the kind reads them (typed, with defaults); ValueError when unfit."""
    if kind not in KINDS:
        raise ValueError(f"sources of kind {kind!r} are not pulled; use one of {list(KINDS)}")
    return vars(read_settings(KINDS[kind].settings, settings)).copy()


@transaction.atomic
def add_source(*, name: str, kind: str, settings: Mapping[str, Any]) -> ReplaySource:
    return ReplaySource.objects.create(
        name=name, kind=kind, settings=validate_settings(kind, settings)
    )


def set_source_enabled(*, name: str, enabled: bool) -> ReplaySource:
    source = ReplaySource.objects.get(name=name)
    source.enabled = enabled
    source.save(update_fields=["enabled"])
    return source


@transaction.atomic
def ensure_simulator_source() -> tuple[ReplaySource, bool]:
    """The live simulated league of `make run`, created (with a day of backlog) if no
    simulator source exists; returns the source and whether it was created."""
    existing = ReplaySource.objects.filter(kind=ReplaySource.Kind.SIMULATOR).first()
    if existing is not None:
        return existing, False
    start = (timezone.now() - SIMULATOR_BACKLOG).replace(microsecond=0)
    source = add_source(
        name=SIMULATOR_SOURCE,
        kind=ReplaySource.Kind.SIMULATOR,
        settings={"start": start.isoformat()},
    )
    return source, True
