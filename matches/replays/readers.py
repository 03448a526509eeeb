"""Streaming readers that turn replay files into decoded objects (DESIGN.md section 5).

Readers only decode; rules live in ``validation``. A line that cannot be decoded
becomes a RawReplay with an ``error`` and the file goes on, so an importer can send
it to RejectedReplay like any invalid replay. Files are read line by line in bounded
memory: million-replay imports must not load a file at once, and a hostile file
without line breaks must not either.
"""

from __future__ import annotations

import csv
import gzip
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

import orjson

CSV_COLUMNS = (
    "id", "played_at", "floor", "winner",
    "p1_id", "p1_name", "p1_character", "p1_platform",
    "p2_id", "p2_name", "p2_character", "p2_platform",
)  # fmt: skip
# A valid replay takes well under 1 kB; longer lines are skipped without being held.
MAX_LINE_BYTES = 64 * 1024
_BOM = b"\xef\xbb\xbf"


class RawReplay(NamedTuple):
    """One replay as read: its decoded object, or why it could not be decoded.

    A NamedTuple rather than a dataclass: a million-line import builds a million of
    them, and a tuple is the cheapest immutable record to build.
    """

    line: int  # where the record starts: line number in a file, position in a batch
    raw: str  # the original text, kept for the rejection log
    payload: dict | None
    error: str | None


# Files are decompressed and split a block at a time: splitting a block with one
# C call is several times faster than a readline() call per line.
_BLOCK_BYTES = 1 << 20


def _pieces(stream: BinaryIO) -> Iterator[bytes | None]:
    """The stream split at line feeds; None for a line over the limit, whose bytes are
    dropped as they are read. At most one block plus one line is held at a time, so a
    hostile file without line breaks is skipped through, not loaded."""
    tail = b""  # the unfinished last line of the blocks read so far
    skipping = False  # inside an over-long line: drop bytes up to its end
    while block := stream.read(_BLOCK_BYTES):
        lines = (tail + block).split(b"\n")
        tail = lines.pop()
        for line in lines:
            yield None if skipping else line
            skipping = False
        if len(tail) > MAX_LINE_BYTES:
            tail, skipping = b"", True
    if skipping or tail:
        yield None if skipping else tail


def _lines(stream: BinaryIO) -> Iterator[tuple[int, bytes | None]]:
    """Numbered physical lines without their ending; None stands for an over-long line."""
    for number, line in enumerate(_pieces(stream), start=1):
        if line is not None:
            line = line.rstrip(b"\r")
            if len(line) > MAX_LINE_BYTES:
                line = None
            elif number == 1 and line.startswith(_BOM):
                line = line[len(_BOM) :]
        yield number, line


_TOO_LONG = f"line longer than {MAX_LINE_BYTES} bytes"


def _decode(data: bytes) -> tuple[str, str | None]:
    """Strict UTF-8, so that mangled bytes are reported instead of stored as U+FFFD."""
    try:
        return data.decode(), None
    except UnicodeDecodeError:
        return data.decode(errors="replace"), "invalid UTF-8"


def _json_error(error: orjson.JSONDecodeError) -> str:
    if error.msg == "depth limit exceeded":
        return "invalid JSON: nested too deeply"
    return f"invalid JSON: {error.msg} at column {error.colno}"


def _read_json_lines(stream: BinaryIO) -> Iterator[RawReplay]:
    loads = orjson.loads
    for number, data in _lines(stream):
        if data is None:
            yield RawReplay(number, "", None, _TOO_LONG)
            continue
        if not data or data.isspace():
            continue
        text, error = _decode(data)
        if error is None:
            try:
                payload = loads(text)
            except orjson.JSONDecodeError as exc:
                error = _json_error(exc)
            else:
                if type(payload) is dict:
                    yield RawReplay(number, text, payload, None)
                    continue
                error = "not a JSON object"
        yield RawReplay(number, text, None, error)


class _CsvFeed:
    """Feeds lines to csv.reader and remembers the lines of the record being read.

    csv.reader may take several lines for one record (quoted line breaks), so the raw
    text and any decoding error are collected here and read back per record.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._lines = _lines(stream)
        self.first_line = 0
        self.parts: list[str] = []
        self.error: str | None = None

    def start_record(self) -> None:
        self.parts = []
        self.error = None

    def raw(self) -> str:
        parts = self.parts
        return parts[0] if len(parts) == 1 else "\n".join(parts)

    def __iter__(self) -> _CsvFeed:
        return self

    def __next__(self) -> str:
        number, data = next(self._lines)
        if not self.parts:
            self.first_line = number
        if data is None:
            text, error = "", _TOO_LONG
        else:
            text, error = _decode(data)
        self.error = self.error or error
        self.parts.append(text)
        return text + "\n"


def _cell(text: str) -> int | str | None:
    """Numbers as ints and empty cells as None, so CSV rows look like JSON replays."""
    if not (text.isdigit() and text.isascii()):  # padded cells are rare: strip only then
        text = text.strip()
        if not (text.isdigit() and text.isascii()):
            return text or None
    return int(text)


def _csv_payload(row: list[str]) -> dict:
    (replay_id, played_at, floor, winner,
     p1_id, p1_name, p1_character, p1_platform,
     p2_id, p2_name, p2_character, p2_platform) = row  # fmt: skip
    return {
        "id": replay_id,
        "played_at": _cell(played_at),
        "floor": _cell(floor),
        "winner": _cell(winner),
        "players": [
            {"id": p1_id, "name": p1_name, "character": _cell(p1_character),
             "platform": p1_platform.strip()},
            {"id": p2_id, "name": p2_name, "character": _cell(p2_character),
             "platform": p2_platform.strip()},
        ],
    }  # fmt: skip


def _read_csv(stream: BinaryIO) -> Iterator[RawReplay]:
    feed = _CsvFeed(stream)
    rows = csv.reader(feed)
    header_seen = False
    while True:
        feed.start_record()
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            yield RawReplay(feed.first_line, feed.raw(), None, f"invalid CSV: {exc}")
            continue
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if not header_seen:
            if tuple(column.strip().lower() for column in row) != CSV_COLUMNS:
                raise ValueError(f"CSV header must be: {','.join(CSV_COLUMNS)}")
            header_seen = True
        elif feed.error:
            yield RawReplay(feed.first_line, feed.raw(), None, feed.error)
        elif len(row) != len(CSV_COLUMNS):
            error = f"expected {len(CSV_COLUMNS)} columns, found {len(row)}"
            yield RawReplay(feed.first_line, feed.raw(), None, error)
        else:
            yield RawReplay(feed.first_line, feed.raw(), _csv_payload(row), None)


_FORMATS = (
    (".jsonl", _read_json_lines),
    (".ndjson", _read_json_lines),
    (".json", _read_json_lines),  # only when gzipped: see iter_replay_file
    (".csv", _read_csv),
)


def iter_replay_file(path: str | Path) -> Iterator[RawReplay]:
    """Stream the replays of a .jsonl/.ndjson/.csv file, each optionally gzipped (.gz).

    ``.json.gz`` is read as JSON Lines too, since feed dumps are published that way.
    Raises ValueError at once for an unsupported name; a CSV file without the header
    raises ValueError when reading starts.
    """
    path = Path(path)
    name = path.name.lower()
    compressed = name.endswith(".gz")
    base = name.removesuffix(".gz")
    for suffix, reader in _FORMATS:
        if base.endswith(suffix) and (compressed or suffix != ".json"):
            return _read_path(path, reader, compressed)
    raise ValueError(
        f"unsupported replay file {path.name!r}: expected .jsonl, .ndjson or .csv,"
        " optionally gzipped (.gz), or .json.gz"
    )


def _read_path(
    path: Path, reader: Callable[[BinaryIO], Iterator[RawReplay]], compressed: bool
) -> Iterator[RawReplay]:
    opener = gzip.open if compressed else open
    with opener(path, "rb") as stream:
        yield from reader(stream)


def iter_replay_payloads(items: Iterable[object]) -> Iterator[RawReplay]:
    """Wrap the replays of an HTTP feed page like file lines, so one ingestion path serves
    both; ``line`` is the position in the page, from 1."""
    for position, item in enumerate(items, start=1):
        raw = json.dumps(item, ensure_ascii=False, default=repr)
        if isinstance(item, dict):
            yield RawReplay(position, raw, item, None)
        else:
            yield RawReplay(position, raw, None, "not a JSON object")
