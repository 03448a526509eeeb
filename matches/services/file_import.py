"""Storing a replay file (docs/architecture.md#from-a-replay-to-a-page, step 1): read,
validated and encoded as COPY data in a child process (matches.services.import_process)
while this one writes, as matches.services.ingest stores replays; a first load into an
empty database goes in without indexes, built at the end. Ingest's batch sizes are read
through its module: one setting for both ways of storing.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, connection, transaction

from matches.models import IngestRun, Match, PendingMatch, ReplaySource
from matches.replays.readers import iter_replay_file
from matches.services import bulk, ingest
from matches.services.garbage_collection import paused_garbage_collection
from matches.services.import_process import (
    GAME_COLUMNS,
    SEEN_NAME_COLUMNS,
    SEEN_PLAYER_COLUMNS,
    FirstLoadRepeats,
    ImportProcess,
    ParsedChunk,
    PlayerFollower,
    SeenPlayers,
    new_game_lines,
)
from matches.services.ingest import IngestResult
from matches.services.ingest_rows import (
    MATCH_INSERT_COLUMNS,
    NAME_COLUMNS,
    PLAYER_COLUMNS,
    player_upserts,
)
from matches.services.locks import INGEST_WRITER_LOCK, acquire_transaction_lock
from players.models import Player, PlayerName
from players.selectors.roster import current_roster

FILE_IMPORT_SOURCE = "file-import"


def file_import_source() -> ReplaySource:
    source, _ = ReplaySource.objects.get_or_create(
        name=FILE_IMPORT_SOURCE, defaults={"kind": ReplaySource.Kind.FILE, "enabled": False}
    )
    return source


def store_replay_file(
    *,
    source: ReplaySource,
    path: Path,
    run: IngestRun | None = None,
    chunk_size: int = ingest.CHUNK_SIZE,
) -> IngestResult:
    """Validate and store the replays of a file (`readers.iter_replay_file`), as
    `ingest.store_replays` does. The file is read in a child process (`import_process`) while
    this one writes; a daemonic process (a Celery pool worker, say) may not start one
    and reads on a thread instead."""
    replays = iter_replay_file(path, csv_cells=True)  # an unsupported name raises here
    if multiprocessing.current_process().daemon:
        return ingest.store_replays(source=source, replays=replays, run=run, chunk_size=chunk_size)
    return _store_file_from_child(source, path, run, chunk_size)


def _store_file_from_child(
    source: ReplaySource, path: Path, run: IngestRun | None, chunk_size: int
) -> IngestResult:
    """Store a file read in a child process: a first load (`_FileFromChild.first_load`)
    when the database holds no game once the writer's lock is held, else transactions
    that commit after every PLAYERS_PER_TRANSACTION players, as `ingest.store_replays` does."""
    with (
        paused_garbage_collection(),
        ImportProcess(
            path,
            chunk_size=chunk_size,
            max_clock_skew=timedelta(seconds=settings.REPLAY_MAX_CLOCK_SKEW_SECONDS),
            characters=current_roster().codes,
        ) as child,
        closing(PlayerFollower()) as follower,
    ):
        load = _FileFromChild(source, run, child.messages(), follower)
        with transaction.atomic():
            acquire_transaction_lock(INGEST_WRITER_LOCK, wait=True)
            more = load.first_load() if ingest.is_first_load() else load.later_transaction()
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
    # In a first load, the repeats its end will drop (their players are not followed).
    repeats: FirstLoadRepeats | None = None

    def _store(self, chunk: ParsedChunk, write_players_at: int) -> SeenPlayers | None:
        """Store a chunk; returns the players to write if its games brought them to
        `write_players_at`."""
        new_keys = _insert_encoded_matches(self.source.id, chunk) if chunk.valid else []
        new = len(new_keys)
        # Only the games stored may change a player: a duplicate replay changes nothing.
        # A first load stores repeats until its end, which drops them.
        if self.repeats is not None:
            games = self.repeats.kept_lines(chunk.games)
        elif new == chunk.valid:
            games = chunk.games
        else:
            games = new_game_lines(chunk.games, new_keys)
        players = self.follower.follow(games, write_at=write_players_at)
        if chunk.rejected:
            ingest.store_rejections(self.source, self.run, chunk.rejected, chunk.parsed_at)
        self.result.add(IngestResult(chunk.read, new, chunk.valid - new, len(chunk.rejected)))
        return players.result()

    def _write_the_rest(self) -> None:
        if (players := self.follower.rest()) is not None:
            _write_seen_players(players)

    def later_transaction(self) -> bool:
        """Store chunks until their players fill a transaction, then those players;
        False once the file is used up."""
        for chunk in self.chunks:
            if (players := self._store(chunk, ingest.PLAYERS_PER_TRANSACTION)) is not None:
                _write_seen_players(players)
                return True
        self._write_the_rest()
        return False

    def first_load(self) -> bool:
        """A first load (`ingest.is_first_load`), in the caller's one transaction; False: it
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
        self.repeats = FirstLoadRepeats()
        with bulk.indexes_built_after((Player, PlayerName), keep_unique=True):
            build_match_indexes = bulk.set_indexes_aside((Match,))
            for chunk in self.chunks:
                if (players := self._store(chunk, ingest.FIRST_LOAD_PLAYERS_PER_WRITE)) is not None:
                    _write_seen_players(players)
            self._write_the_rest()
            try:
                with transaction.atomic():
                    build_match_indexes()
            except IntegrityError:
                repeated = _drop_repeated_games()
                self.result.new, self.result.duplicate = self.result.new - repeated, repeated
                build_match_indexes()
        self.repeats = None
        return False


def _from_epoch_microseconds(column: str) -> str:
    """SQL for the time of an integer column of epoch microseconds."""
    return f"timestamptz 'epoch' + {column} * interval '1 microsecond'"


def _write_seen_players(seen: SeenPlayers) -> None:
    """Upsert the players the child saw, then their names, in key order as storing replays
    does (matches.services.ingest)."""
    players, names = player_upserts()
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


def _insert_encoded_matches(source_id: int, chunk: ParsedChunk) -> list[tuple]:
    """Insert a chunk's games from the child's text COPY data (times as epoch
    microseconds), the table's sequence numbering them in file order, skipping those
    stored already, and queue the new ones for rating; returns the (replay id, epoch
    microseconds, player A, player B) of those that were new (in a first load, every
    one: repeats are found at its end)."""
    given = {"source_id": "%(source)s", "ingested_at": "%(parsed_at)s"}
    for name in ("played_at", "reported_at"):
        given[name] = _from_epoch_microseconds(name)
    values = ", ".join(given.get(name, name) for name in MATCH_INSERT_COLUMNS)
    with connection.cursor() as cursor:
        bulk.copy_text_into_temp(cursor, "_copied", GAME_COLUMNS, chunk.games)
        cursor.execute(
            f"WITH new AS (INSERT INTO {Match._meta.db_table} ({', '.join(MATCH_INSERT_COLUMNS)}) "
            f"SELECT {values} FROM _copied ON CONFLICT DO NOTHING "
            "RETURNING id, played_at, source_replay_id, player_a_id, player_b_id), "
            f"queued AS (INSERT INTO {PendingMatch._meta.db_table} (match_id, played_at) "
            "SELECT id, played_at FROM new) SELECT source_replay_id, "
            # Exact: EXTRACT gives a numeric.
            "(EXTRACT(EPOCH FROM played_at) * 1000000)::bigint, player_a_id, player_b_id "
            "FROM new",
            {"source": source_id, "parsed_at": chunk.parsed_at},
        )
        new = cursor.fetchall()
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
