"""Streaming readers that turn replay files into decoded objects (docs/replay-format.md#files).

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
import re
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import BinaryIO, NamedTuple

import orjson

CSV_COLUMNS = (
    "id", "played_at", "floor", "winner",
    "p1_id", "p1_name", "p1_character", "p1_platform",
    "p2_id", "p2_name", "p2_character", "p2_platform",
)  # fmt: skip
# A file may add the game's version as a last column.
CSV_VERSION_COLUMN = "version"
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
    # A CSV record's cells, when the reader was asked for them instead of a payload
    # (`iter_replay_file(..., csv_cells=True)`): `csv_payload` makes them one.
    cells: list[str] | None = None


# Files are decompressed and split a block at a time: splitting a block with one
# C call is several times faster than a readline() call per line.
_BLOCK_BYTES = 1 << 20
# No replay takes fewer bytes a line: a block with more lines than that is mostly blank
# (a few hundred kilobytes of gzip can hold 256 MiB of blank lines), and is scanned for
# its other lines in C instead of being split into lines that Python code looks at.
_DENSE_LINE_BYTES = 32
# A line from its first byte that is not ASCII whitespace.
_CONTENT = re.compile(rb"\S[^\n]*")


def _lines(stream: BinaryIO) -> Iterator[tuple[int, bytes | None]]:
    """The numbered non-blank lines of the stream, without their ending; None stands for
    a line over the limit, whose bytes are dropped as they are read. At most one block
    plus one line is held at a time, so a hostile file without line breaks is skipped
    through, not loaded."""
    tail = b""  # the unfinished last line of the blocks read so far
    skipping = False  # inside an over-long line: drop bytes up to its end
    number = 0  # the lines before this block's whole lines
    while block := stream.read(_BLOCK_BYTES):
        data = tail + block if tail else block
        end = data.rfind(b"\n") + 1  # data[start:end] holds whole lines only
        start = 0
        if skipping:
            if not end:
                continue
            number += 1
            yield number, None
            start, skipping = data.index(b"\n") + 1, False
        count = data.count(b"\n", start, end)
        if count * _DENSE_LINE_BYTES > end - start:
            if not data.isspace():  # a blank block costs one C call
                yield from _scanned_lines(data, start, end, number)
        elif count:
            for line_number, line in enumerate(data[start : end - 1].split(b"\n"), number + 1):
                if not line or line.isspace():
                    continue
                line = line.rstrip(b"\r")
                if len(line) > MAX_LINE_BYTES:
                    yield line_number, None
                elif line_number > 1 or (line := _trimmed(line, line_number)) != b"":
                    yield line_number, line
        number += count
        tail = data[end:]
        if len(tail) > MAX_LINE_BYTES:
            tail, skipping = b"", True
    if skipping:
        yield number + 1, None
    elif (line := _trimmed(tail, number + 1)) != b"":
        yield number + 1, line


def _scanned_lines(
    data: bytes, start: int, end: int, number: int
) -> Iterator[tuple[int, bytes | None]]:
    """The non-blank lines of data[start:end], found without looking at the blank ones;
    ``number`` is the number of the line before ``start``."""
    at = start  # where line number + 1 starts
    for match in _CONTENT.finditer(data, start, end):
        begin, stop = match.span()
        if begin != at:  # after blank lines, or indented: find where the line starts
            begin = data.rfind(b"\n", at, begin) + 1 or at
            number += data.count(b"\n", at, begin)
        number += 1
        at = stop + 1
        if (line := _trimmed(data[begin:stop], number)) != b"":
            yield number, line


def _trimmed(line: bytes, number: int) -> bytes | None:
    """A line without its carriage return and the first line's byte order mark; None
    when over the limit, empty when blank."""
    line = line.rstrip(b"\r")
    if len(line) > MAX_LINE_BYTES:
        return None
    if number == 1 and line.startswith(_BOM):
        line = line[len(_BOM) :]
    return b"" if line.isspace() else line


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


def _csv_cells(text: str) -> list[str]:
    """The cells of one physical line. A replay never holds a line break, so a record
    never continues on the next line, and a stray quote costs only its own line."""
    if '"' not in text and "\r" not in text:
        return text.split(",")  # what csv.reader makes of such a line, several times faster
    row = next(csv.reader((text + "\n",)), [])
    # Only a quote left open takes the line feed into a cell.
    if row and row[-1].endswith("\n"):
        raise csv.Error("unterminated quote (a record must fit on one line)")
    return row


def _cell(text: str) -> int | str | None:
    """Numbers as ints and empty cells as None, so CSV rows look like JSON replays."""
    if not (text.isdigit() and text.isascii()):  # padded cells are rare: strip only then
        text = text.strip()
        if not (text.isdigit() and text.isascii()):
            return text or None
    return int(text)


def csv_payload(row: list[str]) -> dict:
    """The replay object of a CSV record's cells, as a JSON Lines file would give it."""
    (replay_id, played_at, floor, winner,
     p1_id, p1_name, p1_character, p1_platform,
     p2_id, p2_name, p2_character, p2_platform) = row[:12]  # fmt: skip
    payload = {
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
    if len(row) > len(CSV_COLUMNS):
        payload["version"] = row[len(CSV_COLUMNS)]
    return payload


def _read_csv(stream: BinaryIO, *, cells: bool = False) -> Iterator[RawReplay]:
    columns: tuple[str, ...] = ()
    for number, data in _lines(stream):
        row: list[str] = []
        if data is None:
            text, error = "", _TOO_LONG
        else:
            text, error = _decode(data)
        if error is None:
            try:
                row = _csv_cells(text)
            except csv.Error as exc:
                error = f"invalid CSV: {exc}"
            else:
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
        if not columns:
            header = tuple(column.strip().lower() for column in row)
            if error or header not in (CSV_COLUMNS, (*CSV_COLUMNS, CSV_VERSION_COLUMN)):
                raise ValueError(
                    f"CSV header must be: {','.join(CSV_COLUMNS)}[,{CSV_VERSION_COLUMN}]"
                )
            columns = header
        elif error:
            yield RawReplay(number, text, None, error)
        elif len(row) != len(columns):
            error = f"expected {len(columns)} columns, found {len(row)}"
            yield RawReplay(number, text, None, error)
        elif cells:
            yield RawReplay(number, text, None, None, row)
        else:
            yield RawReplay(number, text, csv_payload(row), None)


_FORMATS = (
    (".jsonl", _read_json_lines),
    (".ndjson", _read_json_lines),
    (".json", _read_json_lines),  # only when gzipped: see iter_replay_file
    (".csv", _read_csv),
)


def iter_replay_file(path: str | Path, *, csv_cells: bool = False) -> Iterator[RawReplay]:
    """Stream the replays of a .jsonl/.ndjson/.csv file, each optionally gzipped (.gz).

    ``.json.gz`` is read as JSON Lines too, since feed dumps are published that way.
    Raises ValueError at once for an unsupported name; a CSV file without the header
    raises ValueError when reading starts. With ``csv_cells``, a CSV record comes as its
    ``cells`` without a payload, for a caller that checks the cells itself
    (`validation.plain_csv_replay`) and builds the payload only when it must.
    """
    path = Path(path)
    name = path.name.lower()
    compressed = name.endswith(".gz")
    base = name.removesuffix(".gz")
    for suffix, reader in _FORMATS:
        if base.endswith(suffix) and (compressed or suffix != ".json"):
            if csv_cells and reader is _read_csv:
                reader = partial(_read_csv, cells=True)
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
        try:
            raw = json.dumps(item, ensure_ascii=False, default=repr)
        except RecursionError:  # a page's decoder may allow more depth than this
            yield RawReplay(position, "", None, "nested too deeply")
            continue
        if isinstance(item, dict):
            yield RawReplay(position, raw, item, None)
        else:
            yield RawReplay(position, raw, None, "not a JSON object")


def reread(raw: str) -> RawReplay:
    """A kept replay's text (RejectedReplay.raw) as its reader gave it: a JSON object
    (a JSON Lines file, an HTTP feed) or else a CSV record's cells; `line` is 0."""
    if raw.lstrip().startswith("{"):
        try:
            payload = orjson.loads(raw)
        except orjson.JSONDecodeError as error:
            return RawReplay(0, raw, None, _json_error(error))
        if isinstance(payload, dict):
            return RawReplay(0, raw, payload, None)
        return RawReplay(0, raw, None, "not a JSON object")
    try:
        cells = _csv_cells(raw)
    except csv.Error as error:
        return RawReplay(0, raw, None, f"invalid CSV: {error}")
    if len(cells) != len(CSV_COLUMNS):
        return RawReplay(0, raw, None, f"expected {len(CSV_COLUMNS)} columns, found {len(cells)}")
    return RawReplay(0, raw, None, None, cells)
