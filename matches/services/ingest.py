"""Storing replays (DESIGN.md section 4.6, step 1): validate, then insert each game once.

Players, their names and matches are written in bulk with conflict handling, so the
same replay delivered twice (in one file, across pages, across sources) is stored
once, and invalid replays go to RejectedReplay with their reason while the rest of
the batch goes on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import islice

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from matches.models import IngestRun, Match, RejectedReplay, ReplaySource
from matches.replays.readers import RawReplay
from matches.replays.validation import InvalidReplay, ParsedReplay, parse_replay
from matches.services import bulk
from players.models import Player, PlayerName

CHUNK_SIZE = 5000
# Enough of a rejected payload to see what was wrong without storing megabytes.
MAX_REJECTED_RAW_CHARS = 16_384
FILE_IMPORT_SOURCE = "file-import"

MATCH_INSERT_COLUMNS = (
    "source_id",
    "source_replay_id",
    "played_at",
    "time_corrected",
    "ingested_at",
    "floor",
    "player_a_id",
    "character_a_id",
    "platform_a",
    "player_b_id",
    "character_b_id",
    "platform_b",
    "winner",
)


@dataclass
class IngestResult:
    """Counts of one ingestion: every replay read is exactly one of new, duplicate, rejected."""

    read: int = 0
    new: int = 0
    duplicate: int = 0
    rejected: int = 0

    def add(self, other: IngestResult) -> None:
        self.read += other.read
        self.new += other.new
        self.duplicate += other.duplicate
        self.rejected += other.rejected

    def __str__(self) -> str:
        return (
            f"read {self.read}, new {self.new}, duplicate {self.duplicate}, "
            f"rejected {self.rejected}"
        )


@dataclass(frozen=True, slots=True)
class _Side:
    player_id: str
    name: str
    character_id: int
    platform: str


def file_import_source() -> ReplaySource:
    source, _ = ReplaySource.objects.get_or_create(
        name=FILE_IMPORT_SOURCE, defaults={"kind": ReplaySource.Kind.FILE, "enabled": False}
    )
    return source


def _chunks(items: Iterable[RawReplay], size: int) -> Iterator[list[RawReplay]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _sides(replay: ParsedReplay) -> tuple[_Side, _Side, str]:
    """Both sides in stored order (smaller player id first) and the stored winner."""
    first, second = (_Side(p.id, p.name, p.character_id, p.platform) for p in replay.players)
    if first.player_id <= second.player_id:
        return first, second, "A" if replay.winner == 0 else "B"
    return second, first, "B" if replay.winner == 0 else "A"


def _greatest_least() -> tuple[str, str]:
    return ("GREATEST", "LEAST") if connection.vendor == "postgresql" else ("MAX", "MIN")


def _upsert_players(replays: list[ParsedReplay]) -> None:
    """One row per player: the latest name, platform and floor; first and last seen."""
    latest: dict[str, list] = {}
    names: dict[tuple[str, str], list] = {}
    for replay in replays:
        moment = replay.played_at
        for player in replay.players:
            row = latest.get(player.id)
            if row is None:
                latest[player.id] = [
                    player.id,
                    player.name,
                    player.platform,
                    replay.floor,
                    moment,
                    moment,
                    False,
                    False,
                    False,
                ]
            else:
                if moment >= row[5]:
                    row[1], row[2], row[5] = player.name, player.platform, moment
                    row[3] = replay.floor if replay.floor is not None else row[3]
                row[4] = min(row[4], moment)
            seen = names.get((player.id, player.name))
            if seen is None:
                names[(player.id, player.name)] = [player.id, player.name, moment, moment]
            else:
                seen[2], seen[3] = min(seen[2], moment), max(seen[3], moment)

    greatest, least = _greatest_least()
    table = Player._meta.db_table
    newer = f"excluded.last_seen >= {table}.last_seen"
    bulk.insert(
        Player,
        (
            "id",
            "name",
            "platform",
            "floor",
            "first_seen",
            "last_seen",
            "hidden",
            "cheater",
            "supporter",
        ),
        latest.values(),
        f"""ON CONFLICT (id) DO UPDATE SET
            name = CASE WHEN {newer} THEN excluded.name ELSE {table}.name END,
            platform = CASE WHEN {newer} THEN excluded.platform ELSE {table}.platform END,
            floor = CASE WHEN {newer} THEN COALESCE(excluded.floor, {table}.floor)
                    ELSE {table}.floor END,
            first_seen = {least}({table}.first_seen, excluded.first_seen),
            last_seen = {greatest}({table}.last_seen, excluded.last_seen)""",
    )
    names_table = PlayerName._meta.db_table
    bulk.insert(
        PlayerName,
        ("player_id", "name", "first_seen", "last_seen"),
        names.values(),
        f"""ON CONFLICT (player_id, name) DO UPDATE SET
            first_seen = {least}({names_table}.first_seen, excluded.first_seen),
            last_seen = {greatest}({names_table}.last_seen, excluded.last_seen)""",
    )


def _insert_matches(source: ReplaySource, replays: list[ParsedReplay], now: datetime) -> int:
    """Insert the games; returns how many were new (the rest were already stored)."""
    rows = []
    for replay in replays:
        side_a, side_b, winner = _sides(replay)
        rows.append(
            (
                source.id,
                replay.source_replay_id,
                replay.played_at,
                replay.time_corrected,
                now,
                replay.floor,
                side_a.player_id,
                side_a.character_id,
                side_a.platform,
                side_b.player_id,
                side_b.character_id,
                side_b.platform,
                winner,
            )
        )
    return bulk.insert(Match, MATCH_INSERT_COLUMNS, rows, "ON CONFLICT DO NOTHING")


def _reject(
    source: ReplaySource, run: IngestRun | None, rejected: list[tuple[str, str]], now: datetime
) -> None:
    RejectedReplay.objects.bulk_create(
        [
            RejectedReplay(
                source=source,
                run=run,
                raw=raw[:MAX_REJECTED_RAW_CHARS],
                fingerprint=hashlib.sha256(raw.encode("utf-8", "replace")).hexdigest(),
                reason=reason[:255],
                created_at=now,
            )
            for raw, reason in rejected
        ],
        ignore_conflicts=True,
    )


@transaction.atomic
def _store_chunk(
    source: ReplaySource, run: IngestRun | None, chunk: list[RawReplay], now: datetime
) -> IngestResult:
    skew = timedelta(seconds=settings.REPLAY_MAX_CLOCK_SKEW_SECONDS)
    valid: list[ParsedReplay] = []
    rejected: list[tuple[str, str]] = []
    for item in chunk:
        if item.error is not None:
            rejected.append((item.raw, item.error))
            continue
        try:
            valid.append(parse_replay(item.payload, now=now, max_clock_skew=skew))
        except InvalidReplay as error:
            rejected.append((item.raw, error.reason))
    new = 0
    if valid:
        _upsert_players(valid)
        new = _insert_matches(source, valid, now)
    if rejected:
        _reject(source, run, rejected, now)
    return IngestResult(
        read=len(chunk), new=new, duplicate=len(valid) - new, rejected=len(rejected)
    )


def store_replays(
    *,
    source: ReplaySource,
    replays: Iterable[RawReplay],
    run: IngestRun | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> IngestResult:
    """Validate and store replays a chunk per transaction; returns what happened to them.

    Called inside a transaction, the chunks become savepoints of it: a caller that
    saves a feed cursor in the same transaction commits cursor and data together.
    """
    result = IngestResult()
    for chunk in _chunks(replays, chunk_size):
        result.add(_store_chunk(source, run, chunk, timezone.now()))
    return result


def start_run(source: ReplaySource) -> IngestRun:
    """Open the IngestRun of a pull or import, so rejected replays can point at it."""
    return IngestRun.objects.create(source=source, started_at=timezone.now())


def finish_run(run: IngestRun, result: IngestResult, error: str = "") -> IngestRun:
    run.finished_at = timezone.now()
    run.fetched, run.new = result.read, result.new
    run.duplicate, run.rejected = result.duplicate, result.rejected
    run.error = error
    run.save()
    return run
