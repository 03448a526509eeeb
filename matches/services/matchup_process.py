"""A recompute's second core: the MatchupLedger in a child process (PostgreSQL).

A recompute is one Python thread replaying every game, and half of each game's cost
is what follows from its result: player matchup sums and daily snapshots.
The RatingLedger must see the games one at a time in order, but the MatchupLedger
needs only each game and its result, so it runs beside it in a child process fed a
chunk at a time. At the end the child encodes its rows as binary COPY data into files,
and the parent streams them into its own transaction: the child cannot write them
itself, because the parent's transaction has emptied and locked those tables.

Free of Django on purpose: the child starts as a fresh interpreter ("spawn", never a
fork of a process holding database connections) and needs only psycopg.
"""

from __future__ import annotations

import multiprocessing
import queue
import tempfile
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import psycopg
from psycopg.copy import Copy, FileWriter

from matches.ratings.ledger import Game, GameResult, MatchupLedger, RatingKey
from matches.services import rating_rows
from matches.services.child_process import LIVENESS_SECONDS, SPAWN, ChildProcess
from matches.services.memory import paused_garbage_collection

# What the child encodes: one COPY file per table, named by these keys.
PLAYER_MATCHUPS = "player_matchups"
SNAPSHOTS = "snapshots"

# Chunks waiting for the child; bounds the parent's memory when the child falls behind.
_QUEUED_CHUNKS = 4


class MatchupProcessFailed(RuntimeError):
    """The child process failed or died; the recompute must roll back."""


class MatchupProcess(ChildProcess):
    """Runs `ledger` in a child process: `record` chunks of rated games, `close`, then
    load the `encoded_files`.

    Use it as a context manager: leaving it stops the child and removes its files.
    """

    failure = MatchupProcessFailed
    label = "matchup"

    def __init__(
        self,
        ledger: MatchupLedger,
        connection_params: Mapping[str, Any],
        column_types: Mapping[str, list[int]],
    ) -> None:
        self._inbox = SPAWN.Queue(maxsize=_QUEUED_CHUNKS)
        self._directory = tempfile.TemporaryDirectory(prefix="recompute-")
        # Plain values only (they are pickled for the child).
        super().__init__(
            _serve,
            (
                ledger,
                dict(connection_params),
                dict(column_types),
                Path(self._directory.name),
                self._inbox,
            ),
            name="recompute-matchups",
        )

    def _stopped(self) -> None:
        self._inbox.close()
        self._inbox.cancel_join_thread()  # chunks a dead child never read are dropped
        self._directory.cleanup()

    def record(self, games: Sequence[Game], results: Sequence[GameResult]) -> None:
        """Hand a chunk of games, in order, with their results to the child."""
        # Plain tuples: they pickle several times faster than named tuples.
        self._put(("games", list(map(tuple, games)), list(map(tuple, results))))

    def close(self, rating_ids: Mapping[RatingKey, int]) -> None:
        """No more games: the child encodes every row, naming ratings by these ids."""
        self._put(("encode", dict(rating_ids)))

    def encoded_files(self) -> Iterator[tuple[str, Path]]:
        """(table key, COPY file) as the child finishes each: PLAYER_MATCHUPS and
        SNAPSHOTS, in some order."""
        while True:
            message = self.reply()
            if message[0] == "done":
                return
            if message[0] == "failed":
                raise MatchupProcessFailed(f"the matchup process failed:\n{message[1]}")
            _, name, path = message
            yield name, path

    def _put(self, message: tuple) -> None:
        while True:
            try:
                self._inbox.put(message, timeout=LIVENESS_SECONDS)
                return
            except queue.Full:
                if not self.is_alive():
                    raise self.died() from None


def _serve(
    ledger: MatchupLedger,
    connection_params: dict[str, Any],
    column_types: dict[str, list[int]],
    directory: Path,
    inbox: Any,
    replies: Connection,
) -> None:
    """The child: record chunks until closed, then report each file encoded, or the error."""
    try:
        with paused_garbage_collection():
            record = ledger.record
            while True:
                kind, *payload = _next_message(inbox)
                if kind != "games":
                    break
                games, results = payload
                for game, result in zip(games, results, strict=True):
                    record(Game._make(game), GameResult._make(result))
            (rating_ids,) = payload
            encoded = _encode(ledger, rating_ids, connection_params, column_types, directory)
            for name, path in encoded:
                replies.send(("encoded", name, path))
        replies.send(("done",))
    except Exception:
        replies.send(("failed", traceback.format_exc()))


def _next_message(inbox: Any) -> tuple:
    """The parent's next message; exits if the parent died (nobody would send one)."""
    parent = multiprocessing.parent_process()
    while True:
        try:
            return inbox.get(timeout=LIVENESS_SECONDS)
        except queue.Empty:
            if parent is not None and not parent.is_alive():
                raise SystemExit("the recompute that started this process is gone") from None


def _encode(
    ledger: MatchupLedger,
    rating_ids: Mapping[RatingKey, int],
    connection_params: dict[str, Any],
    column_types: dict[str, list[int]],
    directory: Path,
) -> Iterator[tuple[str, Path]]:
    """Encode each table's rows into a COPY file; yields (table key, file) as each is done.
    The biggest goes first, so the parent can load it while the rest are encoded."""
    tables: dict[str, Callable[[], Iterator[tuple]]] = {
        SNAPSHOTS: lambda: rating_rows.snapshot_rows(ledger.take_snapshots(), rating_ids),
        PLAYER_MATCHUPS: lambda: rating_rows.player_matchup_rows(ledger, rating_ids),
    }
    # The connection only lends psycopg's adapters to the encoder; nothing is executed.
    with psycopg.connect(**connection_params) as connection, connection.cursor() as cursor:
        for name, rows in tables.items():
            path = directory / f"{name}.copy"
            with (
                path.open("wb") as file,
                Copy(cursor, binary=True, writer=FileWriter(file)) as copy,
            ):
                copy.set_types(column_types[name])
                for row in rows():
                    copy.write_row(row)
            yield name, path
