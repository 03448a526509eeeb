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
from contextlib import closing, nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import islice

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from matches.models import IngestRun, Match, PendingMatch, RejectedReplay, ReplaySource
from matches.replays.readers import RawReplay
from matches.replays.storable import storable, storable_text
from matches.replays.validation import InvalidReplay, ParsedReplay, parse_replay
from matches.services import bulk
from matches.services.locks import INGEST_WRITER_LOCK, acquire_transaction_lock
from matches.services.memory import paused_garbage_collection
from players.models import Player, PlayerName

CHUNK_SIZE = 20_000
# Distinct players a transaction gathers before it is written and committed, which bounds
# memory: a million-game import of 100,000 players peaks at about 240 MB in all.
PLAYERS_PER_TRANSACTION = 200_000
# A first load (one transaction: `_is_first_load`) writes its players after this many
# instead: each write of a player already written leaves a row version that cannot be
# pruned until the commit, and at ten million games a player recurs in a dozen windows
# of 200,000. About 1 KB of memory a player.
FIRST_LOAD_PLAYERS_PER_WRITE = 1_000_000
# Enough of a rejected payload to see what was wrong without storing megabytes.
MAX_REJECTED_RAW_CHARS = 16_384
MAX_REASON_CHARS = RejectedReplay._meta.get_field("reason").max_length
ESCAPED_NOTE = " (raw text escaped: NUL and lone surrogates written as \\x00, \\udXXX)"
FILE_IMPORT_SOURCE = "file-import"

MATCH_INSERT_COLUMNS = (
    "source_id",
    "source_replay_id",
    "played_at",
    "reported_at",
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


def file_import_source() -> ReplaySource:
    source, _ = ReplaySource.objects.get_or_create(
        name=FILE_IMPORT_SOURCE, defaults={"kind": ReplaySource.Kind.FILE, "enabled": False}
    )
    return source


def _chunks(items: Iterable[RawReplay], size: int) -> Iterator[list[RawReplay]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _greatest_least() -> tuple[str, str]:
    return ("GREATEST", "LEAST") if connection.vendor == "postgresql" else ("MAX", "MIN")


class _PlayerSightings:
    """What a run of chunks showed of each player, written once for the whole run.

    A player appears in many games of an import; upserting their row once per run
    instead of once per chunk is what keeps large imports fast. Keeps, per player, the
    latest name, platform and floor and the first and last time seen; per (player,
    name), the first and last time that name was used.
    """

    def __init__(self) -> None:
        self.latest: dict[str, list] = {}
        self.names: dict[tuple[str, str], list] = {}

    def __len__(self) -> int:
        return len(self.latest)

    def add(self, replays: list[ParsedReplay]) -> None:
        latest, names = self.latest, self.names
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
                    elif moment < row[4]:
                        row[4] = moment
                seen = names.get((player.id, player.name))
                if seen is None:
                    names[(player.id, player.name)] = [player.id, player.name, moment, moment]
                elif moment > seen[3]:
                    seen[3] = moment
                elif moment < seen[2]:
                    seen[2] = moment

    def write(self) -> None:
        """Upsert the players, then their names, in key order: concurrent importers then
        lock shared rows in the same order and cannot deadlock."""
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
            (self.latest[key] for key in sorted(self.latest)),
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
            (self.names[key] for key in sorted(self.names)),
            f"""ON CONFLICT (player_id, name) DO UPDATE SET
                first_seen = {least}({names_table}.first_seen, excluded.first_seen),
                last_seen = {greatest}({names_table}.last_seen, excluded.last_seen)""",
        )


def _match_row(source_id: int, replay: ParsedReplay, now: datetime) -> tuple:
    """The stored row of a game: side A is the player with the smaller id."""
    first, second = replay.players
    winner = replay.winner
    if first.id > second.id:
        first, second, winner = second, first, 1 - winner
    return (
        source_id,
        replay.source_replay_id,
        replay.played_at,
        replay.reported_at,
        now,
        replay.floor,
        first.id,
        first.character_id,
        first.platform,
        second.id,
        second.character_id,
        second.platform,
        "A" if winner == 0 else "B",
    )


def _insert_matches(rows: list[tuple]) -> int:
    """Insert the games and queue the new ones for rating; returns how many were new."""
    return bulk.insert_and_record_new(
        Match,
        MATCH_INSERT_COLUMNS,
        rows,
        "ON CONFLICT DO NOTHING",
        returning=("id", "played_at"),
        record=PendingMatch,
        record_columns=("match_id", "played_at"),
    )


def _rejection(
    source: ReplaySource, run: IngestRun | None, raw: str, reason: str, now: datetime
) -> RejectedReplay:
    """A rejected replay as it can be stored: its raw text and reason pass the storable
    boundary, and the reason says when the raw text had to be escaped. The fingerprint
    is taken from the text as received (surrogates included), so it stays distinct and
    the same for the same input."""
    fingerprint = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()
    raw, escaped = storable(raw[:MAX_REJECTED_RAW_CHARS])
    reason = storable_text(reason)
    if escaped:
        reason = reason[: MAX_REASON_CHARS - len(ESCAPED_NOTE)] + ESCAPED_NOTE
    return RejectedReplay(
        source=source,
        run=run,
        raw=raw,
        fingerprint=fingerprint,
        reason=reason[:MAX_REASON_CHARS],
        created_at=now,
    )


def _reject(
    source: ReplaySource, run: IngestRun | None, rejected: list[tuple[str, str]], now: datetime
) -> None:
    RejectedReplay.objects.bulk_create(
        [_rejection(source, run, raw, reason, now) for raw, reason in rejected],
        ignore_conflicts=True,
    )


@dataclass
class _ParsedChunk:
    """A chunk of replays made ready to write: match rows, rejections, players seen."""

    read: int
    match_rows: list[tuple]
    rejected: list[tuple[str, str]]  # (raw text, reason)
    parsed_at: datetime
    # The players of this chunk's transaction so far, this chunk's included.
    sightings: _PlayerSightings
    # Whether the transaction has seen enough players to be written and committed.
    fills_transaction: bool = False


def _parse_chunk(
    chunk: list[RawReplay], source_id: int, sightings: _PlayerSightings
) -> _ParsedChunk:
    now = timezone.now()
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
    sightings.add(valid)
    rows = [_match_row(source_id, replay, now) for replay in valid]
    return _ParsedChunk(len(chunk), rows, rejected, now, sightings)


def _store_chunk(source: ReplaySource, run: IngestRun | None, chunk: _ParsedChunk) -> IngestResult:
    new = _insert_matches(chunk.match_rows) if chunk.match_rows else 0
    if chunk.rejected:
        _reject(source, run, chunk.rejected, chunk.parsed_at)
    return IngestResult(
        read=chunk.read,
        new=new,
        duplicate=len(chunk.match_rows) - new,
        rejected=len(chunk.rejected),
    )


def _parsed_ahead(
    source: ReplaySource, replays: Iterable[RawReplay], chunk_size: int, players_per_write: int
) -> Iterator[_ParsedChunk]:
    """The replays a chunk at a time, ready to write. The next chunk is read, validated
    and turned into rows on a helper thread while the caller writes this one: all the
    pure-Python work happens there, while the database works on the caller's statements
    (which release the GIL)."""
    chunks = _chunks(replays, chunk_size)
    sightings = _PlayerSightings()

    def next_parsed() -> _ParsedChunk | None:
        nonlocal sightings
        chunk = next(chunks, None)
        if chunk is None:
            return None
        parsed = _parse_chunk(chunk, source.id, sightings)
        if len(sightings) >= players_per_write:
            parsed.fills_transaction = True
            sightings = _PlayerSightings()
        return parsed

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay-parser") as parser:
        pending = parser.submit(next_parsed)
        while (parsed := pending.result()) is not None:
            pending = parser.submit(next_parsed)
            yield parsed


def _store_transaction(
    source: ReplaySource,
    run: IngestRun | None,
    chunks: Iterator[_ParsedChunk],
    result: IngestResult,
    *,
    first_load: bool,
) -> bool:
    """Store chunks in one transaction until one fills it, then the players they saw;
    False once the input is used up. A first load (`_is_first_load`) is one transaction
    to the end, writing the players each time a chunk fills.

    Ingesting transactions take turns (INGEST_WRITER_LOCK): two of them inserting the
    same games in different orders would otherwise deadlock each other.
    """
    with transaction.atomic():
        acquire_transaction_lock(INGEST_WRITER_LOCK, wait=True)
        indexes = (
            bulk.indexes_built_after((Match, Player, PlayerName), keep_unique=True)
            if first_load
            else nullcontext()
        )
        with indexes:
            sightings = None
            for chunk in chunks:
                result.add(_store_chunk(source, run, chunk))
                sightings = chunk.sightings
                if chunk.fills_transaction:
                    sightings.write()
                    sightings = None
                    if not first_load:
                        return True
            if sightings is not None:
                sightings.write()
    return False


def _is_first_load() -> bool:
    """Into an empty database, games and players load much faster without the indexes
    that no conflict check needs (a game's sides, name search), built once at the end:
    each one kept up row by row is a random write into an index larger than memory at
    ten million games. So a first load is one transaction, which an interruption undoes
    whole (run it again); nothing is there to read meanwhile, so the tables' locks until
    the commit cost nobody. Later loads keep every index and commit as they go."""
    return not Match.objects.exists()


def store_replays(
    *,
    source: ReplaySource,
    replays: Iterable[RawReplay],
    run: IngestRun | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> IngestResult:
    """Validate and store replays; returns what happened to them.

    Games are written a chunk at a time and their players once per transaction, which
    commits after every PLAYERS_PER_TRANSACTION distinct players (or at the end): the
    games of a transaction and the players they name land together, and a player seen
    in a thousand games of an import is written once, not a thousand times (a first
    load commits once, at the end: `_is_first_load`). Called inside a transaction,
    these become savepoints of it: a caller that saves a feed cursor in the same
    transaction commits cursor and data together.
    """
    result = IngestResult()
    first_load = _is_first_load()
    players_per_write = FIRST_LOAD_PLAYERS_PER_WRITE if first_load else PLAYERS_PER_TRANSACTION
    with (
        paused_garbage_collection(),
        closing(_parsed_ahead(source, replays, chunk_size, players_per_write)) as chunks,
    ):
        while _store_transaction(source, run, chunks, result, first_load=first_load):
            pass
    return result


def start_run(source: ReplaySource) -> IngestRun:
    """Open the IngestRun of a pull or import, so rejected replays can point at it."""
    return IngestRun.objects.create(source=source, started_at=timezone.now())


def finish_run(run: IngestRun, result: IngestResult, error: str = "") -> IngestRun:
    run.finished_at = timezone.now()
    run.fetched, run.new = result.read, result.new
    run.duplicate, run.rejected = result.duplicate, result.rejected
    run.error = storable_text(error)  # errors quote input: file names, feed replies
    run.save()
    return run
