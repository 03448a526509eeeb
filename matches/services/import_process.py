"""A file import's second core: reading and checking the replay file in a child process.

An import on PostgreSQL inserts games while Python reads, validates and encodes the
next ones. On threads the two share one interpreter lock, and the Python half alone
took a core; here the child reads the file, checks each replay
(`matches.replays.batch`) and encodes each chunk's games as text COPY data; the parent
hands that data to the database, a chunk behind, and follows the players of each chunk
on a thread (`PlayerFollower`) while the child works on the next one, which leaves the
two processes about as busy.

Free of Django on purpose, like every `ChildProcess`.
"""

from __future__ import annotations

import pickle
import traceback
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from itertools import islice
from multiprocessing.connection import Connection
from pathlib import Path
from typing import NamedTuple

from matches.replays.batch import PlayerSightings, Rejection, parse_batch
from matches.replays.readers import iter_replay_file
from matches.replays.validation import CharacterCodes, FlatReplay
from matches.services.child_process import ChildProcess
from matches.services.garbage_collection import paused_garbage_collection

# The columns of the COPY data of `ParsedChunk.games`, side A being the smaller player
# id; times are integer epoch microseconds, winner "A" or "B". The names are not stored
# with the game: they are there for `game_sightings`.
GAME_COLUMNS = (
    ("source_replay_id", "text"),
    ("played_at", "bigint"),
    ("reported_at", "bigint"),
    ("floor", "smallint"),
    ("player_a_id", "text"),
    ("name_a", "text"),
    ("character_a_id", "integer"),
    ("platform_a", "text"),
    ("player_b_id", "text"),
    ("name_b", "text"),
    ("character_b_id", "integer"),
    ("platform_b", "text"),
    ("winner", "text"),
    ("version", "text"),
)
# The columns of `SeenPlayers`: what the players' and their names' upserts take.
SEEN_PLAYER_COLUMNS = (
    ("id", "text"),
    ("name", "text"),
    ("platform", "text"),
    ("floor", "smallint"),
    ("first_seen", "bigint"),
    ("last_seen", "bigint"),
)
SEEN_NAME_COLUMNS = (
    ("player_id", "text"),
    ("name", "text"),
    ("first_seen", "bigint"),
    ("last_seen", "bigint"),
)
# Errors of the input the parent raises as they were raised in the child (the import
# command reports them as bad input); any other is a ImportProcessFailed.
_INPUT_ERRORS = (OSError, ValueError, EOFError)
_NULL = "\\N"  # NULL in text COPY data


class ImportProcessFailed(RuntimeError):
    """The child process failed or died; the import must roll back."""


class ParsedChunk(NamedTuple):
    """A chunk of the file made ready to store."""

    read: int
    games: bytes  # text COPY data, GAME_COLUMNS
    valid: int
    rejected: list[Rejection]
    parsed_at: datetime


class SeenPlayers(NamedTuple):
    """What games showed of their players (`PlayerSightings`), as text COPY data. Their
    upserts take them in key order (ORDER BY): concurrent importers then lock shared
    rows in the same order, and each index is walked in its own order."""

    players: bytes  # SEEN_PLAYER_COLUMNS
    names: bytes  # SEEN_NAME_COLUMNS


class ImportProcess(ChildProcess):
    """Reads `path` in a child process: iterate `messages` for each ParsedChunk in file
    order.

    Use it as a context manager: leaving it stops the child. The child sends on a pipe,
    so a child that dies ends the parent's wait at once, and one a chunk ahead waits in
    `send`, which bounds the memory.
    """

    failure = ImportProcessFailed
    label = "import"

    def __init__(
        self,
        path: Path,
        *,
        chunk_size: int,
        max_clock_skew: timedelta,
        characters: CharacterCodes,
    ) -> None:
        arguments = (path, chunk_size, max_clock_skew, dict(characters))
        super().__init__(_serve, arguments, name="import-replays")

    def messages(self) -> Iterator[ParsedChunk]:
        while True:
            kind, *payload = self.reply()
            if kind == "done":
                return
            if kind == "failed":
                error, text = payload
                if isinstance(error, _INPUT_ERRORS):
                    raise error
                raise ImportProcessFailed(f"the import process failed:\n{text}")
            yield payload[0]


def _serve(
    path: Path,
    chunk_size: int,
    max_clock_skew: timedelta,
    characters: CharacterCodes,
    messages: Connection,
) -> None:
    """The child: send each chunk, then "done", or the error."""
    try:
        with paused_garbage_collection():
            replays = iter_replay_file(path, csv_cells=True)
            while chunk := list(islice(replays, chunk_size)):
                now = datetime.now(UTC)
                valid, rejected = parse_batch(
                    chunk, now=now, max_clock_skew=max_clock_skew, characters=characters
                )
                games = encode_games(valid)
                messages.send(("chunk", ParsedChunk(len(chunk), games, len(valid), rejected, now)))
        messages.send(("done",))
    except Exception as error:
        messages.send(("failed", _picklable(error), traceback.format_exc()))


def _picklable(error: Exception) -> Exception | None:
    """The error itself when the parent may raise it again, else None (its traceback
    still goes along)."""
    if not isinstance(error, _INPUT_ERRORS):
        return None
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return None
    return error


def _text(value: str) -> str:
    """Text for COPY data: validation leaves no control character in ids and names,
    so only backslashes need escaping."""
    return value.replace("\\", "\\\\") if "\\" in value else value


def new_game_lines(games: bytes, new_keys: list[tuple]) -> bytes:
    """The games of COPY data `encode_games` made that were stored: those whose (replay
    id, epoch microseconds, player A, player B) is among `new_keys`, each taken once.
    Only these may change a player: a duplicate replay changes nothing (issue 35)."""
    waiting = Counter(new_keys)
    kept = []
    for line in games.split(b"\n")[:-1]:
        replay_id, played, _, _, player_a, _, _, _, player_b, *_ = line.decode().split("\t")
        key = (replay_id.replace("\\\\", "\\"), int(played), player_a, player_b)
        if waiting[key]:
            waiting[key] -= 1
            kept.append(line + b"\n")
    return b"".join(kept)


class FirstLoadRepeats:
    """The repeats of a first load (file_import's), told apart as they arrive: a game
    repeats one before it when a game kept before holds its replay id or its moment
    (reported, else played) and players, the rule by which the load's end drops them
    (file_import._drop_repeated_games, as ON CONFLICT DO NOTHING would have skipped
    them). Their players are then never followed: a duplicate replay changes nothing
    (issue 35). Holds two keys a game of the load."""

    def __init__(self) -> None:
        self._replays: set[str] = set()
        self._games: set[tuple[str, str, str]] = set()

    def kept_lines(self, games: bytes) -> bytes:
        """The lines of COPY data `encode_games` made that repeat no game kept before."""
        kept = []
        replays, seen_games = self._replays, self._games
        for line in games.split(b"\n")[:-1]:
            replay_id, played, reported, _, player_a, _, _, _, player_b, *_ = line.decode().split(
                "\t"
            )
            game = (played if reported == _NULL else reported, player_a, player_b)
            if replay_id in replays or game in seen_games:
                continue
            replays.add(replay_id)
            seen_games.add(game)
            kept.append(line + b"\n")
        return b"".join(kept)


def game_sightings(games: bytes) -> Iterator[FlatReplay]:
    """What `PlayerSightings.add` needs of the games of COPY data `encode_games` made:
    the time, floor and each player's id, name and platform (sides A and B for 1 and 2;
    the rest is left zero)."""
    for line in games.decode().split("\n")[:-1]:
        _, played, _, floor, id_a, name_a, _, platform_a, id_b, name_b, _, platform_b, *_ = (
            line.split("\t")
        )
        if "\\" in line:
            name_a, name_b = name_a.replace("\\\\", "\\"), name_b.replace("\\\\", "\\")
        yield (
            "", int(played), None, None if floor == _NULL else int(floor),
            id_a, name_a, 0, platform_a, id_b, name_b, 0, platform_b, 0, "",
        )  # fmt: skip


class PlayerFollower:
    """Follows the players of the child's chunks on a thread of the parent's, while the
    parent's own thread waits on the database; `close` stops the thread."""

    def __init__(self) -> None:
        self._sightings = PlayerSightings()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="players")

    def close(self) -> None:
        self._thread.shutdown()

    def follow(self, games: bytes, *, write_at: int) -> Future[SeenPlayers | None]:
        """Add the players of `games` (`encode_games` data); the future holds the players
        followed so far, encoded, once there are `write_at` of them, and they are then
        forgotten: the caller writes them."""
        return self._thread.submit(self._follow, games, write_at)

    def _follow(self, games: bytes, write_at: int) -> SeenPlayers | None:
        self._sightings.add(game_sightings(games))
        return self.rest() if len(self._sightings) >= write_at else None

    def rest(self) -> SeenPlayers | None:
        """The players followed and not handed over yet, encoded; None if none."""
        if not self._sightings:
            return None
        seen, self._sightings = encode_sightings(self._sightings), PlayerSightings()
        return seen


def encode_sightings(sightings: PlayerSightings) -> SeenPlayers:
    """The players and names of `sightings` as COPY data, in no order: sorting them here
    cost a third of a second for 200,000 players, while the parent waits for them; the
    upserts sort them (`SeenPlayers`)."""
    players = "".join(
        f"{key}\t{_text(name)}\t{platform}\t{_NULL if floor is None else floor}\t{first}\t{last}\n"
        for key, name, platform, floor, first, last, _ in sightings.latest.values()
    )
    seen_names = "".join(
        f"{key}\t{_text(name)}\t{first}\t{last}\n"
        for key, name, first, last in sightings.names.values()
    )
    return SeenPlayers(players.encode(), seen_names.encode())


def encode_games(replays: list[FlatReplay]) -> bytes:
    """The games of `replays` as text COPY data of GAME_COLUMNS."""
    lines = []
    for replay in replays:
        (replay_id, played, reported, floor,
         id1, name1, char1, platform1, id2, name2, char2, platform2,
         winner, version) = replay  # fmt: skip
        if id1 > id2:
            id1, name1, char1, platform1, id2, name2, char2, platform2 = (
                id2, name2, char2, platform2, id1, name1, char1, platform1
            )  # fmt: skip
            winner = 1 - winner
        lines.append(
            f"{_text(replay_id)}\t{played}\t{_NULL if reported is None else reported}\t"
            f"{_NULL if floor is None else floor}\t{id1}\t{_text(name1)}\t{char1}\t"
            f"{platform1}\t{id2}\t{_text(name2)}\t{char2}\t{platform2}\t{'AB'[winner]}\t"
            f"{_text(version)}\n"
        )
    return "".join(lines).encode()
