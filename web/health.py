"""Probes for a load balancer or process supervisor (docs/monitoring.md#probes).

`/healthz`: the process answers. `/readyz`: the database answers with every migration
applied, and the cache and the broker are reachable; 503 naming each part that is not.
Both are answered by a middleware near the top of the stack: before the host check, the
HTTPS redirect, sessions, throttles and the page cache, and not counted in the request
metrics. Their answers are never stored (Cache-Control: no-store).
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from collections.abc import Callable
from functools import cache as once

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import add_never_cache_headers
from kombu import Connection

logger = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 2.0


class NotReady(Exception):
    """A part of the site the answer names is not usable."""


@once
def _migrations_on_disk() -> frozenset[tuple[str, str]]:
    """Every migration of this release (read once: the files do not change while it runs)."""
    return frozenset(MigrationLoader(None, ignore_no_migrations=True).graph.nodes)


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def check_migrations() -> None:
    missing = _migrations_on_disk() - set(MigrationRecorder(connection).applied_migrations())
    if missing:
        raise NotReady(f"{len(missing)} migrations not applied")


def check_cache() -> None:
    key = f"readyz:{uuid.uuid4().hex}"
    cache.set(key, 1, timeout=10)
    if cache.get(key) != 1:
        raise NotReady("a value just stored could not be read back")
    cache.delete(key)


def check_broker() -> None:
    url = settings.CELERY_BROKER_URL
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    if url.startswith("filesystem"):
        # The local broker is a folder the site writes messages into.
        folder = options["data_folder_out"]
        if not os.access(folder, os.W_OK | os.X_OK):
            raise NotReady("its message folder is not writable")
        return
    with Connection(
        url, transport_options=options, connect_timeout=BROKER_TIMEOUT_SECONDS
    ) as broker:
        broker.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT_SECONDS)


# In order: migrations are read from the database, so they are not checked without it.
CHECKS: dict[str, Callable[[], None]] = {
    "database": check_database,
    "migrations": check_migrations,
    "cache": check_cache,
    "broker": check_broker,
}


NOT_CHECKED = "not checked: the database is not ready"


def _state(part: str, check: Callable[[], None]) -> str:
    """ "ok", or what is wrong: the reason the check gave, else the error's type (whose
    message can hold addresses, which a probe's answer does not show)."""
    try:
        check()
        return "ok"
    except NotReady as reason:
        logger.warning("readyz: %s is not ready: %s", part, reason)
        return str(reason)
    except Exception as error:  # any failure of a part makes the site not ready
        logger.warning("readyz: %s is not ready", part, exc_info=True)
        return type(error).__name__


def readiness() -> dict[str, str]:
    """Each part's state: "ok", or what went wrong with it."""
    states: dict[str, str] = {}
    for part, check in CHECKS.items():
        if part == "migrations" and states["database"] != "ok":
            states[part] = NOT_CHECKED
        else:
            states[part] = _state(part, check)
    if states["database"] != "ok":
        # The next probe starts from a fresh connection, not a broken one.
        with contextlib.suppress(DatabaseError):
            connection.close()
    return states


def _answer(body: dict, status: int) -> HttpResponse:
    response = JsonResponse(body, status=status)
    add_never_cache_headers(response)
    # Django would log a 503 as an error, a line every probe; readiness() has said which part.
    response._has_been_logged = True
    return response


def healthz() -> HttpResponse:
    return _answer({"status": "ok"}, 200)


def readyz() -> HttpResponse:
    states = readiness()
    failing = [part for part, state in states.items() if state not in ("ok", NOT_CHECKED)]
    body = {"status": "failing" if failing else "ok", "failing": failing, "checks": states}
    return _answer(body, 503 if failing else 200)


PROBES: dict[str, Callable[[], HttpResponse]] = {"/healthz": healthz, "/readyz": readyz}


def probes(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Middleware: answers GET/HEAD /healthz and /readyz before anything below it runs."""

    def middleware(request: HttpRequest) -> HttpResponse:
        probe = PROBES.get(request.path_info)
        if probe is not None and request.method in ("GET", "HEAD"):
            return probe()
        return get_response(request)

    return middleware
