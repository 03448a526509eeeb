"""Storing replays (DESIGN.md section 4.6, step 1): validate, then insert each game once.

Players, their names and matches are written in bulk with conflict handling, so the
same replay delivered twice (in one file, across pages, across sources) is stored
once, and invalid replays go to RejectedReplay with their reason while the rest of
the batch goes on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import islice

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from matches.models import IngestRun, Match, PendingMatch, RejectedReplay, ReplaySource
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
    """Insert the games and queue the new ones for rating; returns how many were new."""
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
    inserted = bulk.insert_returning(
        Match, MATCH_INSERT_COLUMNS, rows, "ON CONFLICT DO NOTHING", ("id", "source_replay_id")
    )
    played_at: dict[str, datetime] = {}
    for replay in replays:  # the first of repeated ids is the one stored
        played_at.setdefault(replay.source_replay_id, replay.played_at)
    bulk.insert(
        PendingMatch,
        ("match_id", "played_at"),
        [(match_id, played_at[replay_id]) for match_id, replay_id in inserted],
    )
    return len(inserted)


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


@dataclass
class _ParsedChunk:
    read: int
    valid: list[ParsedReplay]
    rejected: list[tuple[str, str]]  # (raw text, reason)
    parsed_at: datetime


def _parse_chunk(chunk: list[RawReplay]) -> _ParsedChunk:
    now = timezone.now()
    skew = timedelta(seconds=settings.REPLAY_MAX_CLOCK_SKEW_SECONDS)
    parsed = _ParsedChunk(len(chunk), [], [], now)
    for item in chunk:
        if item.error is not None:
            parsed.rejected.append((item.raw, item.error))
            continue
        try:
            parsed.valid.append(parse_replay(item.payload, now=now, max_clock_skew=skew))
        except InvalidReplay as error:
            parsed.rejected.append((item.raw, error.reason))
    return parsed


@transaction.atomic
def _store_chunk(source: ReplaySource, run: IngestRun | None, chunk: _ParsedChunk) -> IngestResult:
    new = 0
    if chunk.valid:
        _upsert_players(chunk.valid)
        new = _insert_matches(source, chunk.valid, chunk.parsed_at)
    if chunk.rejected:
        _reject(source, run, chunk.rejected, chunk.parsed_at)
    return IngestResult(
        read=chunk.read, new=new, duplicate=len(chunk.valid) - new, rejected=len(chunk.rejected)
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
    The next chunk is read and validated on a helper thread while the database stores
    the current one (pure Python there; the database work here releases the GIL).
    """
    chunks = _chunks(replays, chunk_size)

    def next_parsed() -> _ParsedChunk | None:
        chunk = next(chunks, None)
        return None if chunk is None else _parse_chunk(chunk)

    result = IngestResult()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay-parser") as parser:
        pending = parser.submit(next_parsed)
        while (parsed := pending.result()) is not None:
            pending = parser.submit(next_parsed)
            result.add(_store_chunk(source, run, parsed))
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
