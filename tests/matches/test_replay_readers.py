"""Replay files in every supported format decode to the same objects, line by line."""

from __future__ import annotations

import csv
import gzip
import io
import json
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest

from matches.replays import (
    CSV_COLUMNS,
    RawReplay,
    iter_replay_file,
    iter_replay_payloads,
)
from matches.replays import (
    parse_replay as _parse_replay,
)
from matches.replays.readers import MAX_LINE_BYTES
from players.seed_roster import SEED_IDS

parse_replay = partial(_parse_replay, characters=SEED_IDS)

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def make_replay(n: int, *, name: str = "kyo", platform: str | None = "ps") -> dict:
    second: dict = {"id": "210611080522104011", "name": name, "character": "KY"}
    if platform is not None:
        second["platform"] = platform
    return {
        "id": f"r-{n:06d}",
        "played_at": f"2026-11-21T14:{n % 60:02d}:11Z",
        "floor": 10,
        "winner": 1 + n % 2,
        "players": [
            {"id": "230129212655563979", "name": "Sol, \"Badguy\" Main", "character": "SO",
             "platform": "pc"},
            second,
        ],
    }  # fmt: skip


REPLAYS = [
    make_replay(1),
    make_replay(2, name="ソル使い 🔥"),
    make_replay(3, platform=None),
    make_replay(4, name="<script>alert(1)</script>"),
]


def write_bytes(path: Path, data: bytes) -> Path:
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def jsonl_bytes(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


@pytest.mark.parametrize(
    "name", ["replays.jsonl", "replays.jsonl.gz", "replays.ndjson", "replays.json.gz", "R.JSONL"]
)
def test_json_lines_round_trip(tmp_path: Path, name: str) -> None:
    lines = [json.dumps(replay, ensure_ascii=False) for replay in REPLAYS]
    path = write_bytes(tmp_path / name, jsonl_bytes(lines))
    records = list(iter_replay_file(path))
    assert records == [
        RawReplay(line=n, raw=line, payload=replay, error=None)
        for n, (line, replay) in enumerate(zip(lines, REPLAYS, strict=True), start=1)
    ]


def test_blank_lines_crlf_and_bom_are_handled(tmp_path: Path) -> None:
    first, second = (json.dumps(replay) for replay in REPLAYS[:2])
    data = b"\xef\xbb\xbf" + f"{first}\r\n\r\n   \n{second}".encode()
    records = list(iter_replay_file(write_bytes(tmp_path / "r.jsonl", data)))
    assert [(r.line, r.raw, r.error) for r in records] == [(1, first, None), (4, second, None)]


def test_bad_lines_become_errors_and_the_rest_go_on(tmp_path: Path) -> None:
    good = json.dumps(REPLAYS[0])
    data = b"\n".join(
        [
            good.encode(),
            b'{"id": "r-2", "played_at": ',
            b"[1, 2, 3]",
            b'{"id": "caf\xe9"}',
            b"[" * 50_000,
            b"x" * (MAX_LINE_BYTES + 10),
            good.encode(),
        ]
    )
    records = list(iter_replay_file(write_bytes(tmp_path / "r.jsonl.gz", data)))
    assert [r.line for r in records] == [1, 2, 3, 4, 5, 6, 7]
    assert [r.payload is not None for r in records] == [True, *[False] * 5, True]
    errors = [r.error for r in records]
    assert errors[0] is None and errors[6] is None
    assert (
        errors[1] is not None and errors[1] == "invalid JSON: unexpected end of data at column 28"
    )
    assert errors[2] == "not a JSON object"
    assert errors[3] == "invalid UTF-8"
    assert records[3].raw == '{"id": "caf\ufffd"}'
    assert errors[4] == "invalid JSON: nested too deeply"
    assert errors[5] == f"line longer than {MAX_LINE_BYTES} bytes"
    assert records[5].raw == ""


@pytest.mark.parametrize("block_bytes", [7, 4096, MAX_LINE_BYTES + 1])
def test_lines_split_across_blocks_read_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block_bytes: int
) -> None:

    good = json.dumps(REPLAYS[0]).encode()
    data = b"\r\n".join(
        [b"\xef\xbb\xbf" + good, b"", b"y" * (3 * MAX_LINE_BYTES), good, b"{", good]
    )
    path = write_bytes(tmp_path / "r.jsonl", data)
    expected = list(iter_replay_file(path))
    assert [(r.line, r.error) for r in expected] == [
        (1, None),
        (3, f"line longer than {MAX_LINE_BYTES} bytes"),
        (4, None),
        (5, "invalid JSON: unexpected end of data at column 2"),
        (6, None),
    ]
    monkeypatch.setattr("matches.replays.readers._BLOCK_BYTES", block_bytes)
    assert list(iter_replay_file(path)) == expected


def test_a_file_without_line_breaks_is_one_over_long_line(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "r.jsonl", b"z" * (5 * 1024 * 1024))
    assert [(r.line, r.error) for r in iter_replay_file(path)] == [
        (1, f"line longer than {MAX_LINE_BYTES} bytes")
    ]


def test_a_line_exactly_at_the_limit_is_read(tmp_path: Path) -> None:
    line = b'{"pad": "' + b"x" * (MAX_LINE_BYTES - 11) + b'"}'
    assert len(line) == MAX_LINE_BYTES
    records = list(iter_replay_file(write_bytes(tmp_path / "r.jsonl", line + b"\n" + line)))
    assert [r.error for r in records] == [None, None]


def csv_row(replay: dict) -> list[object]:
    row: list[object] = [replay["id"], replay["played_at"], replay["floor"], replay["winner"]]
    for player in replay["players"]:
        row += [player["id"], player["name"], player["character"], player.get("platform", "")]
    return row


def csv_bytes(rows: list[list[object]], header: tuple[str, ...] = CSV_COLUMNS) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode()


def normalised(replay: dict) -> dict:
    """The shape a CSV row decodes to: every column present, absent platform as ''."""
    result = json.loads(json.dumps(replay))
    for player in result["players"]:
        player.setdefault("platform", "")
    return result


@pytest.mark.parametrize("name", ["replays.csv", "replays.csv.gz"])
def test_csv_round_trip(tmp_path: Path, name: str) -> None:
    path = write_bytes(tmp_path / name, csv_bytes([csv_row(replay) for replay in REPLAYS]))
    records = list(iter_replay_file(path))
    assert [r.error for r in records] == [None] * len(REPLAYS)
    assert [r.line for r in records] == [2, 3, 4, 5]
    assert [r.payload for r in records] == [normalised(replay) for replay in REPLAYS]
    assert records[0].raw.startswith("r-000001,2026-11-21T14:01:11Z,10,2,")
    for record, replay in zip(records, REPLAYS, strict=True):
        assert parse_replay(record.payload, now=NOW) == parse_replay(replay, now=NOW)


def test_csv_converts_numbers_like_json(tmp_path: Path) -> None:
    rows = [["r-1", "1763733791", "", "2", "1", "a", "0", "", "2", "b", " ky ", "xbox"]]
    (record,) = iter_replay_file(write_bytes(tmp_path / "r.csv", csv_bytes(rows)))
    assert record.payload == {
        "id": "r-1",
        "played_at": 1763733791,
        "floor": None,
        "winner": 2,
        "players": [
            {"id": "1", "name": "a", "character": 0, "platform": ""},
            {"id": "2", "name": "b", "character": "ky", "platform": "xbox"},
        ],
    }


def test_csv_bad_records_become_errors(tmp_path: Path) -> None:
    good = csv_row(REPLAYS[0])
    data = csv_bytes([good, ["r-2", "2026-11-21T14:03:11Z", "10"], [], good])
    data += b"r-9,2026-11-21T14:03:11Z,10,1,1,caf\xe9,SO,,2,b,KY,\n"
    data += b'r-10,2026-11-21T14:03:11Z,10,1,1,"two\nlines",SO,,2,b,KY,\n'
    records = list(iter_replay_file(write_bytes(tmp_path / "r.csv", data)))
    assert [(r.line, r.error) for r in records] == [
        (2, None),
        (3, "expected 12 columns, found 3"),
        (5, None),
        (6, "invalid UTF-8"),
        # A record never spans lines (a replay holds no line break), so a quoted line
        # break is two bad lines, not one record that swallows what follows.
        (7, "invalid CSV: unterminated quote (a record must fit on one line)"),
        (8, "expected 12 columns, found 7"),
    ]
    assert records[4].raw == 'r-10,2026-11-21T14:03:11Z,10,1,1,"two'


def test_csv_without_header_is_refused(tmp_path: Path) -> None:
    data = csv_bytes([csv_row(REPLAYS[0])], header=tuple(csv_row(REPLAYS[1])))
    with pytest.raises(ValueError, match="CSV header must be"):
        list(iter_replay_file(write_bytes(tmp_path / "r.csv", data)))


def test_csv_header_tolerates_case_spaces_and_bom(tmp_path: Path) -> None:
    header = tuple(f" {column.upper()}" for column in CSV_COLUMNS)
    data = b"\xef\xbb\xbf" + csv_bytes([csv_row(REPLAYS[0])], header=header)
    (record,) = iter_replay_file(write_bytes(tmp_path / "r.csv", data))
    assert record.payload == normalised(REPLAYS[0])


@pytest.mark.parametrize("name", ["replays.txt", "replays.json", "replays.gz", "replays"])
def test_unknown_extensions_fail_at_once(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="unsupported replay file"):
        iter_replay_file(tmp_path / name)


def test_reading_is_lazy(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(REPLAYS[0]) + "\n")
    records = iter_replay_file(path)
    with path.open("a") as stream:  # lines added before reading starts are still seen
        stream.write(json.dumps(REPLAYS[1]) + "\n")
    assert [r.payload for r in records] == REPLAYS[:2]


def test_feed_pages_use_the_same_records() -> None:
    records = list(iter_replay_payloads([REPLAYS[1], ["not", "an", "object"]]))
    assert records[0] == RawReplay(
        line=1, raw=json.dumps(REPLAYS[1], ensure_ascii=False), payload=REPLAYS[1], error=None
    )
    assert records[1] == RawReplay(
        line=2, raw='["not", "an", "object"]', payload=None, error="not a JSON object"
    )
