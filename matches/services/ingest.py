"""Storing replays (docs/architecture.md#from-a-replay-to-a-page, step 1): validate, then
insert each game once (docs/replay-format.md).

Players, their names and matches are written in bulk with conflict handling, so the
same replay delivered twice (in one file, across pages, across sources) is stored
once, and invalid replays go to RejectedReplay with their reason while the rest of
the batch goes on. The rows are made in matches.services.ingest_rows; a file read in a
child process is stored by matches.services.file_import.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import islice

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from matches.metrics import GAMES_PULLED, GAMES_REJECTED
from matches.models import IngestRun, Match, PendingMatch, RejectedReplay, ReplaySource
from matches.replays.batch import PlayerSightings, Rejection, parse_batch
from matches.replays.readers import RawReplay
from matches.replays.storable import storable_text
from matches.replays.validation import CharacterCodes, FlatReplay, from_epoch_microseconds
from matches.services import bulk
from matches.services.garbage_collection import paused_garbage_collection
from matches.services.ingest_rows import (
    MATCH_INSERT_COLUMNS,
    NAME_COLUMNS,
    PLAYER_COLUMNS,
    match_row,
    player_upserts,
    rejected_replay,
)
from matches.services.locks import INGEST_RUN_LOCKS, INGEST_WRITER_LOCK, acquire_transaction_lock
from players.models import Player, PlayerName
from players.selectors.roster import current_roster
from players.services.ownership import complete_claims

CHUNK_SIZE = 20_000
# Distinct players a transaction gathers before it is written and committed, which bounds
# memory: a million-game import of 100,000 players peaks at about 240 MB in all.
PLAYERS_PER_TRANSACTION = 200_000
# A first load (one transaction: `is_first_load`) writes its players after this many
# instead: each write of a player already written leaves a row version that cannot be
# pruned until the commit, and at ten million games a player recurs in a dozen windows
# of 200,000. About 1 KB of memory a player.
FIRST_LOAD_PLAYERS_PER_WRITE = 1_000_000


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


def _chunks(items: Iterable[RawReplay], size: int) -> Iterator[list[RawReplay]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _write_sightings(sightings: PlayerSightings) -> None:
    """Upsert the players, then their names, in key order: concurrent importers then
    lock shared rows in the same order and cannot deadlock. Then complete the profile
    claims whose code these names show (players.services.ownership)."""
    players, names = player_upserts()
    moment = from_epoch_microseconds
    bulk.insert(
        Player,
        PLAYER_COLUMNS,
        (
            (key, name, platform, floor, moment(first), moment(last), False, False, False)
            for key, name, platform, floor, first, last, _ in map(
                sightings.latest.__getitem__, sorted(sightings.latest)
            )
        ),
        players,
    )
    bulk.insert(
        PlayerName,
        NAME_COLUMNS,
        (
            (key, name, moment(first), moment(last))
            for key, name, first, last in map(sightings.names.__getitem__, sorted(sightings.names))
        ),
        names,
    )
    complete_claims((key, name, moment(last)) for key, name, _, last in sightings.names.values())


# What tells a stored game's row from the others of its chunk: its replay id, time and
# players (`MATCH_INSERT_COLUMNS` positions), which no two rows share once stored.
_GAME_KEY = ("source_replay_id", "played_at", "player_a_id", "player_b_id")
_GAME_KEY_POSITIONS = tuple(MATCH_INSERT_COLUMNS.index(name) for name in _GAME_KEY)


def _insert_matches(rows: list[tuple]) -> list[tuple]:
    """Insert the games and queue the new ones for rating; returns the `_GAME_KEY` of
    those that were new."""
    return bulk.insert_and_record_new(
        Match,
        MATCH_INSERT_COLUMNS,
        rows,
        "ON CONFLICT DO NOTHING",
        returning=("id", "played_at"),
        record=PendingMatch,
        record_columns=("match_id", "played_at"),
        key=_GAME_KEY,
    )


def new_games(chunk: _ParsedChunk, new_keys: list[tuple]) -> list[FlatReplay]:
    """The valid replays of a chunk that were stored (their `_GAME_KEY` among
    `new_keys`, each taken once): only these may change a player, a duplicate replay
    changes nothing at all (issue 35)."""
    if len(new_keys) == len(chunk.valid):
        return chunk.valid
    waiting = Counter(new_keys)
    kept = []
    for replay, row in zip(chunk.valid, chunk.match_rows, strict=True):
        key = tuple(row[position] for position in _GAME_KEY_POSITIONS)
        if waiting[key]:
            waiting[key] -= 1
            kept.append(replay)
    return kept


def store_rejections(
    source: ReplaySource, run: IngestRun | None, rejected: list[Rejection], now: datetime
) -> None:
    """Store rejected replays once per source and fingerprint (a waiting one included)."""
    RejectedReplay.objects.bulk_create(
        [rejected_replay(source, run, rejection, now) for rejection in rejected],
        ignore_conflicts=True,
    )


@dataclass
class _ParsedChunk:
    """A chunk of replays made ready to write: the valid ones and their match rows, and
    the rejections."""

    read: int
    valid: list[FlatReplay]
    match_rows: list[tuple]
    rejected: list[Rejection]
    parsed_at: datetime


def _parse_chunk(
    chunk: list[RawReplay], source_id: int, characters: CharacterCodes
) -> _ParsedChunk:
    now = timezone.now()
    skew = timedelta(seconds=settings.REPLAY_MAX_CLOCK_SKEW_SECONDS)
    valid, rejected = parse_batch(chunk, now=now, max_clock_skew=skew, characters=characters)
    rows = [match_row(source_id, replay, now) for replay in valid]
    return _ParsedChunk(len(chunk), valid, rows, rejected, now)


def _store_chunk(
    source: ReplaySource, run: IngestRun | None, chunk: _ParsedChunk, sightings: PlayerSightings
) -> IngestResult:
    """Store a chunk's games and rejections, and follow the players of the new games
    into `sightings`."""
    new_ids = _insert_matches(chunk.match_rows) if chunk.match_rows else []
    sightings.add(new_games(chunk, new_ids))
    if chunk.rejected:
        store_rejections(source, run, chunk.rejected, chunk.parsed_at)
    return IngestResult(
        read=chunk.read,
        new=len(new_ids),
        duplicate=len(chunk.match_rows) - len(new_ids),
        rejected=len(chunk.rejected),
    )


def _parsed_ahead(
    source: ReplaySource, replays: Iterable[RawReplay], chunk_size: int
) -> Iterator[_ParsedChunk]:
    """The replays a chunk at a time, ready to write. The next chunk is read, validated
    and turned into rows on a helper thread while the caller writes this one: the
    pure-Python work happens there, while the database works on the caller's statements
    (which release the GIL). Their players are followed by the caller, once it knows
    which games were new."""
    chunks = _chunks(replays, chunk_size)
    characters = current_roster().codes  # read here: the parser's thread has no connection

    def next_parsed() -> _ParsedChunk | None:
        chunk = next(chunks, None)
        if chunk is None:
            return None
        return _parse_chunk(chunk, source.id, characters)

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
    players_per_write: int,
) -> bool:
    """Store chunks in one transaction until the players of their new games reach
    `players_per_write`, then those players; False once the input is used up. A first
    load (`is_first_load`) is one transaction to the end, writing the players each time
    they fill.

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
            sightings = PlayerSightings()
            for chunk in chunks:
                result.add(_store_chunk(source, run, chunk, sightings))
                if len(sightings) >= players_per_write:
                    _write_sightings(sightings)
                    sightings = PlayerSightings()
                    if not first_load:
                        return True
            if sightings:
                _write_sightings(sightings)
    return False


def is_first_load() -> bool:
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
    load commits once, at the end: `is_first_load`). Called inside a transaction,
    these become savepoints of it: a caller that saves a feed cursor in the same
    transaction commits cursor and data together.
    """
    result = IngestResult()
    first_load = is_first_load()
    players_per_write = FIRST_LOAD_PLAYERS_PER_WRITE if first_load else PLAYERS_PER_TRANSACTION
    with (
        paused_garbage_collection(),
        closing(_parsed_ahead(source, replays, chunk_size)) as chunks,
    ):
        while _store_transaction(
            source, run, chunks, result, first_load=first_load, players_per_write=players_per_write
        ):
            pass
    return result


ABANDONED = "abandoned: the process running it ended before it finished"


def start_run(source: ReplaySource) -> IngestRun:
    """Open the IngestRun of a pull or import, so rejected replays can point at it. The
    run holds a session lock of its own while it runs; runs left unfinished whose lock
    nobody holds (their process was killed) are closed as abandoned first."""
    close_abandoned_runs()
    run = IngestRun.objects.create(source=source, started_at=timezone.now())
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s, %s)", [INGEST_RUN_LOCKS, run.id])
    return run


def close_abandoned_runs() -> int:
    """Mark unfinished runs whose process is gone (no session holds their lock) as
    abandoned; returns how many."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE matches_ingestrun SET finished_at = now(), error = %s "
            "WHERE finished_at IS NULL AND NOT EXISTS (SELECT 1 FROM pg_locks WHERE "
            "locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE "
            "datname = current_database()) AND classid::bigint = %s "
            "AND objid::bigint = matches_ingestrun.id AND objsubid = 2)",
            [ABANDONED, INGEST_RUN_LOCKS],
        )
        return cursor.rowcount


def finish_run(run: IngestRun, result: IngestResult, error: str = "") -> IngestRun:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [INGEST_RUN_LOCKS, run.id])
    run.finished_at = timezone.now()
    run.fetched, run.new = result.read, result.new
    run.duplicate, run.rejected = result.duplicate, result.rejected
    run.error = storable_text(error)  # errors quote input: file names, feed replies
    run.save()
    GAMES_PULLED.labels(run.source.name).inc(result.new)
    GAMES_REJECTED.labels(run.source.name).inc(result.rejected)
    return run
