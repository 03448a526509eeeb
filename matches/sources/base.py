"""What every kind of source shares: typed settings and storing a page with its cursor."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from django.db import transaction

from matches.models import IngestRun, ReplaySource
from matches.replays.readers import RawReplay
from matches.services.ingest import IngestResult, store_replays

SettingsT = TypeVar("SettingsT")
_CONVERTERS = {"int": int, "float": float, "str": str}


class CursorMoved(RuntimeError):
    """Another pull of the same source saved a cursor first; this pull stops and stores nothing."""


def read_settings(cls: type[SettingsT], raw: Mapping[str, Any]) -> SettingsT:
    """Build a kind's settings dataclass from JSON or command-line strings; loud on bad keys."""
    known = {field.name: field for field in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ValueError(f"unknown settings {', '.join(unknown)}; known: {', '.join(known)}")
    values = {}
    for name, value in raw.items():
        convert = _CONVERTERS[str(known[name].type)]
        try:
            values[name] = convert(value)
        except (TypeError, ValueError):
            raise ValueError(f"setting {name}={value!r} is not a {convert.__name__}") from None
    required = [
        name
        for name, field in known.items()
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
    ]
    missing = [name for name in required if name not in values]
    if missing:
        raise ValueError(f"missing settings {', '.join(missing)} (required: {', '.join(required)})")
    settings = cls(**values)
    validate = getattr(settings, "validate", None)
    if validate is not None:
        validate()
    return settings


def store_page(
    *,
    source: ReplaySource,
    run: IngestRun,
    replays: Iterable[RawReplay],
    after: str,
    next_cursor: str | None,
) -> IngestResult:
    """Store one page of replays and move the cursor from ``after`` to ``next_cursor``, atomically.

    The cursor moves only if it still reads ``after`` (a conditional update, taken
    first so that a concurrent pull of the same source waits on it and then stops
    with CursorMoved instead of storing the page twice). With no ``next_cursor`` the
    replays are stored and the cursor stays: the page is simply read again next time.
    """
    with transaction.atomic():
        if next_cursor is not None and next_cursor != after:
            moved = ReplaySource.objects.filter(pk=source.pk, cursor=after).update(
                cursor=next_cursor
            )
            if not moved:
                raise CursorMoved(f"the cursor of {source.name} is no longer {after!r}")
        result = store_replays(source=source, replays=replays, run=run)
    if next_cursor is not None:
        source.cursor = next_cursor
    return result
