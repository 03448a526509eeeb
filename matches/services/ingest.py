"""Storing replays (docs/architecture.md#from-a-replay-to-a-page, step 1): validate, then
insert each game once (docs/replay-format.md).

Players, their names and matches are written in bulk with conflict handling, so the
same replay delivered twice (in one file, across pages, across sources) is stored
once, and invalid replays go to RejectedReplay with their reason while the rest of
the batch goes on.
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import islice
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from matches.models import IngestRun, Match, PendingMatch, RejectedReplay, ReplaySource
from matches.replays.batch import PlayerSightings, parse_batch
from matches.replays.readers import RawReplay, iter_replay_file
from matches.replays.storable import storable, storable_text
from matches.replays.validation import FlatReplay, from_epoch_microseconds
from matches.services import bulk
from matches.services.garbage_collection import paused_garbage_collection
from matches.services.import_process import (
    GAME_COLUMNS,
    SEEN_NAME_COLUMNS,
    SEEN_PLAYER_COLUMNS,
    ImportProcess,
    ParsedChunk,
    PlayerFollower,
    SeenPlayers,
)
from matches.services.locks import INGEST_WRITER_LOCK, acquire_transaction_lock
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


NAME_COLUMNS = ("player_id", "name", "first_seen", "last_seen")
PLAYER_COLUMNS = (
    "id", "name", "platform", "floor", "first_seen", "last_seen", "hidden", "cheater", "supporter"
)  # fmt: skip


def _player_conflicts() -> tuple[str, str]:
    """The ON CONFLICT clauses that merge a run's sightings into the players and names
    stored: the latest name, platform and floor win, first and last seen widen."""
    table, names_table = Player._meta.db_table, PlayerName._meta.db_table
    newer = f"excluded.last_seen >= {table}.last_seen"
    return (
        f"""ON CONFLICT (id) DO UPDATE SET
            name = CASE WHEN {newer} THEN excluded.name ELSE {table}.name END,
            platform = CASE WHEN {newer} THEN excluded.platform ELSE {table}.platform END,
            floor = CASE WHEN {newer} THEN COALESCE(excluded.floor, {table}.floor)
                    ELSE {table}.floor END,
            first_seen = LEAST({table}.first_seen, excluded.first_seen),
            last_seen = GREATEST({table}.last_seen, excluded.last_seen)""",
        f"""ON CONFLICT (player_id, name) DO UPDATE SET
            first_seen = LEAST({names_table}.first_seen, excluded.first_seen),
            last_seen = GREATEST({names_table}.last_seen, excluded.last_seen)""",
    )


def _write_sightings(sightings: PlayerSightings) -> None:
    """Upsert the players, then their names, in key order: concurrent importers then
    lock shared rows in the same order and cannot deadlock."""
    players, names = _player_conflicts()
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


def _match_row(source_id: int, replay: FlatReplay, now: datetime) -> tuple:
    """The stored row of a game: side A is the player with the smaller id."""
    (replay_id, played, reported, floor,
     id1, _, char1, platform1, id2, _, char2, platform2, winner) = replay  # fmt: skip
    if id1 > id2:
        id1, char1, platform1, id2, char2, platform2 = id2, char2, platform2, id1, char1, platform1
        winner = 1 - winner
    return (
        source_id,
        replay_id,
        from_epoch_microseconds(played),
        None if reported is None else from_epoch_microseconds(reported),
        now,
        floor,
        id1,
        char1,
        platform1,
        id2,
        char2,
        platform2,
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
    sightings: PlayerSightings
    # Whether the transaction has seen enough players to be written and committed.
    fills_transaction: bool = False


def _parse_chunk(
    chunk: list[RawReplay], source_id: int, sightings: PlayerSightings
) -> _ParsedChunk:
    now = timezone.now()
    skew = timedelta(seconds=settings.REPLAY_MAX_CLOCK_SKEW_SECONDS)
    valid, rejected = parse_batch(chunk, now=now, max_clock_skew=skew)
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
    sightings = PlayerSightings()

    def next_parsed() -> _ParsedChunk | None:
        nonlocal sightings
        chunk = next(chunks, None)
        if chunk is None:
            return None
        parsed = _parse_chunk(chunk, source.id, sightings)
        if len(sightings) >= players_per_write:
            parsed.fills_transaction = True
            sightings = PlayerSightings()
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
                    _write_sightings(sightings)
                    sightings = None
                    if not first_load:
                        return True
            if sightings is not None:
                _write_sightings(sightings)
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


def store_replay_file(
    *, source: ReplaySource, path: Path, run: IngestRun | None = None, chunk_size: int = CHUNK_SIZE
) -> IngestResult:
    """Validate and store the replays of a file (`readers.iter_replay_file`), as
    `store_replays` does. The file is read in a child process (`import_process`) while
    this one writes; a daemonic process (a Celery pool worker, say) may not start one
    and reads on a thread instead."""
    replays = iter_replay_file(path, csv_cells=True)  # an unsupported name raises here
    if multiprocessing.current_process().daemon:
        return store_replays(source=source, replays=replays, run=run, chunk_size=chunk_size)
    return _store_file_from_child(source, path, run, chunk_size)


def _store_file_from_child(
    source: ReplaySource, path: Path, run: IngestRun | None, chunk_size: int
) -> IngestResult:
    """Store a file read in a child process: a first load (`_FileFromChild.first_load`)
    when the database holds no game once the writer's lock is held, else transactions
    that commit after every PLAYERS_PER_TRANSACTION players, as `store_replays` does."""
    with (
        paused_garbage_collection(),
        ImportProcess(
            path,
            chunk_size=chunk_size,
            max_clock_skew=timedelta(seconds=settings.REPLAY_MAX_CLOCK_SKEW_SECONDS),
        ) as child,
        closing(PlayerFollower()) as follower,
    ):
        load = _FileFromChild(source, run, child.messages(), follower)
        with transaction.atomic():
            acquire_transaction_lock(INGEST_WRITER_LOCK, wait=True)
            more = load.first_load() if _is_first_load() else load.later_transaction()
        while more:
            with transaction.atomic():
                acquire_transaction_lock(INGEST_WRITER_LOCK, wait=True)
                more = load.later_transaction()
    return load.result


@dataclass
class _FileFromChild:
    """A file stored from the chunks its child process parsed, the players of their
    games followed on the follower's thread while the database inserts them."""

    source: ReplaySource
    run: IngestRun | None
    chunks: Iterator[ParsedChunk]
    follower: PlayerFollower
    result: IngestResult = field(default_factory=IngestResult)

    def _store(self, chunk: ParsedChunk, write_players_at: int) -> SeenPlayers | None:
        """Store a chunk; returns the players to write if its games brought them to
        `write_players_at`."""
        players = self.follower.follow(chunk.games, write_at=write_players_at)
        new = _insert_encoded_matches(self.source.id, chunk) if chunk.valid else 0
        if chunk.rejected:
            _reject(self.source, self.run, chunk.rejected, chunk.parsed_at)
        self.result.add(IngestResult(chunk.read, new, chunk.valid - new, len(chunk.rejected)))
        return players.result()

    def _write_the_rest(self) -> None:
        if (players := self.follower.rest()) is not None:
            _write_seen_players(players)

    def later_transaction(self) -> bool:
        """Store chunks until their players fill a transaction, then those players;
        False once the file is used up."""
        for chunk in self.chunks:
            if (players := self._store(chunk, PLAYERS_PER_TRANSACTION)) is not None:
                _write_seen_players(players)
                return True
        self._write_the_rest()
        return False

    def first_load(self) -> bool:
        """A first load (`_is_first_load`), in the caller's one transaction; False: it
        stores the whole file.

        Into an empty table, the games go in without any index at all, even the unique
        ones, each chunk as COPY of the child's data and one plain INSERT; the indexes
        are built at the end, by then on far more rows than memory holds pages. A game
        that repeats one before it (the same replay, or the same game from another
        source) fails a unique index: only then are such repeats looked for, and removed
        as ON CONFLICT DO NOTHING would have skipped them (`_drop_repeated_games`),
        before the indexes are built again. Each game is queued for rating as it is
        inserted: all are new.
        """
        with bulk.indexes_built_after((Player, PlayerName), keep_unique=True):
            build_match_indexes = bulk.set_indexes_aside((Match,))
            for chunk in self.chunks:
                if (players := self._store(chunk, FIRST_LOAD_PLAYERS_PER_WRITE)) is not None:
                    _write_seen_players(players)
            self._write_the_rest()
            try:
                with transaction.atomic():
                    build_match_indexes()
            except IntegrityError:
                repeated = _drop_repeated_games()
                self.result.new, self.result.duplicate = self.result.new - repeated, repeated
                build_match_indexes()
        return False


def _from_epoch_microseconds(column: str) -> str:
    """SQL for the time of an integer column of epoch microseconds."""
    return f"timestamptz 'epoch' + {column} * interval '1 microsecond'"


def _write_seen_players(seen: SeenPlayers) -> None:
    """Upsert the players the child saw, then their names, in key order as
    `_write_sightings` does."""
    players, names = _player_conflicts()
    times = [_from_epoch_microseconds(name) for name in ("first_seen", "last_seen")]
    with connection.cursor() as cursor:
        bulk.copy_text_into_temp(cursor, "_players", SEEN_PLAYER_COLUMNS, seen.players)
        bulk.copy_text_into_temp(cursor, "_names", SEEN_NAME_COLUMNS, seen.names)
        # Player ids are compared byte by byte (players.fields.IdentifierField).
        cursor.execute(
            f"INSERT INTO {Player._meta.db_table} ({', '.join(PLAYER_COLUMNS)}) "
            f"SELECT id, name, platform, floor, {', '.join(times)}, false, false, false "
            f'FROM _players ORDER BY id COLLATE "C" {players}'
        )
        cursor.execute(
            f"INSERT INTO {PlayerName._meta.db_table} ({', '.join(NAME_COLUMNS)}) "
            f"SELECT player_id, name, {', '.join(times)} FROM _names "
            f'ORDER BY player_id COLLATE "C", name {names}'
        )
        cursor.execute("DROP TABLE _players, _names")


def _insert_encoded_matches(source_id: int, chunk: ParsedChunk) -> int:
    """Insert a chunk's games from the child's text COPY data (times as epoch
    microseconds), the table's sequence numbering them in file order, skipping those
    stored already, and queue the new ones for rating; returns how many were new."""
    given = {"source_id": "%(source)s", "ingested_at": "%(parsed_at)s"}
    for name in ("played_at", "reported_at"):
        given[name] = _from_epoch_microseconds(name)
    values = ", ".join(given.get(name, name) for name in MATCH_INSERT_COLUMNS)
    with connection.cursor() as cursor:
        bulk.copy_text_into_temp(cursor, "_copied", GAME_COLUMNS, chunk.games)
        cursor.execute(
            f"WITH new AS (INSERT INTO {Match._meta.db_table} ({', '.join(MATCH_INSERT_COLUMNS)}) "
            f"SELECT {values} FROM _copied ON CONFLICT DO NOTHING RETURNING id, played_at) "
            f"INSERT INTO {PendingMatch._meta.db_table} (match_id, played_at) "
            "SELECT id, played_at FROM new",
            {"source": source_id, "parsed_at": chunk.parsed_at},
        )
        new = cursor.rowcount
        cursor.execute("DROP TABLE _copied")
    return new


def _drop_repeated_games() -> int:
    """Delete each game loaded after one that shares a unique key with it (its source
    and replay id, or its time and players), as inserting them one after the other
    with ON CONFLICT DO NOTHING would have skipped it; returns how many were deleted.

    Only games whose key is not unique can be repeats, and they are few: they are taken
    in load order (id), each kept unless a game kept before holds one of its keys.
    """
    table = Match._meta.db_table
    moment = "COALESCE(reported_at, played_at)"
    with connection.chunked_cursor() as candidates:  # server-side: they may be many
        candidates.execute(
            f"""SELECT id, source_id, source_replay_id, {moment}, player_a_id, player_b_id
            FROM (SELECT *,
                    count(*) OVER (PARTITION BY source_id, source_replay_id) AS by_replay,
                    count(*) OVER (PARTITION BY {moment}, player_a_id, player_b_id) AS by_game
                  FROM {table}) AS counted
            WHERE by_replay > 1 OR by_game > 1
            ORDER BY id"""
        )
        kept_replays: set[tuple] = set()
        kept_games: set[tuple] = set()
        repeated: list[int] = []
        for match_id, source_id, replay_id, played, player_a, player_b in candidates:
            replay, game = (source_id, replay_id), (played, player_a, player_b)
            if replay in kept_replays or game in kept_games:
                repeated.append(match_id)
            else:
                kept_replays.add(replay)
                kept_games.add(game)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE id = ANY(%s)", [repeated])
        cursor.execute(
            f"DELETE FROM {PendingMatch._meta.db_table} WHERE match_id = ANY(%s)", [repeated]
        )
    return len(repeated)


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
