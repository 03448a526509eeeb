"""Issue 15, ingestion: hostile input costs only itself (docs/replay-format.md).

Every text taken from input is made storable at one boundary (matches.replays.storable),
a bad line costs only its own line, and blank lines cost C speed, not a Python loop.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from matches.management.commands import import_replays
from matches.models import IngestRun, Match, RejectedReplay
from matches.replays import readers
from matches.replays.readers import iter_replay_file, iter_replay_payloads
from matches.replays.storable import storable
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.services.ingest_rows import ESCAPED_NOTE
from matches.sources.pulling import add_source, pull_source
from tests.factories import replay
from tests.worker.conftest import fake_feed, http_source  # noqa: F401  (fake_feed: a fixture)

pytestmark = pytest.mark.django_db

CSV_HEADER = (
    "id,played_at,floor,winner,p1_id,p1_name,p1_character,p1_platform,"
    "p2_id,p2_name,p2_character,p2_platform\n"
)


def jsonl(replays: list[dict]) -> bytes:
    return "".join(json.dumps(item) + "\n" for item in replays).encode()


def test_storable_escapes_nul_and_lone_surrogates_only():
    assert storable("a\x00b\ud800c\udfff") == ("a\\x00b\\ud800c\\udfff", True)
    assert storable("café \U0001f600 \x01") == ("café \U0001f600 \x01", False)


def test_a_nul_line_is_rejected_and_the_good_lines_are_stored(tmp_path: Path):
    """Item 1: on PostgreSQL a NUL in a rejected line used to roll the file back."""
    path = tmp_path / "nul.jsonl"
    path.write_bytes(jsonl([replay(1)]) + b"\x00\n" + b'{"id": "a\\u0000b"}\n' + jsonl([replay(2)]))
    call_command("import_replays", str(path))
    assert Match.objects.count() == 2
    rejected = {r.raw: r.reason for r in RejectedReplay.objects.all()}
    assert set(rejected) == {"\\x00", '{"id": "a\\u0000b"}'}
    assert rejected["\\x00"].startswith("invalid JSON") and rejected["\\x00"].endswith(ESCAPED_NOTE)
    assert rejected['{"id": "a\\u0000b"}'] == "id holds unprintable characters"
    run = IngestRun.objects.get()
    assert run.finished_at is not None and (run.new, run.rejected, run.error) == (2, 2, "")


def test_the_same_nul_line_again_is_kept_once(tmp_path: Path):
    path = tmp_path / "nul.jsonl"
    path.write_bytes(b"\x00\n")
    call_command("import_replays", str(path))
    path.write_bytes(b"\x00\n\\x00\n")  # the visible text of the escape is another line
    call_command("import_replays", str(path))
    assert sorted(RejectedReplay.objects.values_list("raw", flat=True)) == ["\\x00", "\\x00"]


def test_an_import_that_dies_unexpectedly_finishes_its_run(tmp_path: Path, monkeypatch):
    def broken(**kwargs: object) -> None:
        raise RuntimeError("the disk \x00 caught fire")

    monkeypatch.setattr(import_replays, "store_replay_file", broken)
    path = tmp_path / "a.jsonl"
    path.write_bytes(jsonl([replay(1)]))
    with pytest.raises(RuntimeError):
        call_command("import_replays", str(path))
    run = IngestRun.objects.get()
    assert run.finished_at is not None
    assert run.error == f"{path}: RuntimeError: the disk \\x00 caught fire"


def test_a_directory_source_imports_the_files_after_a_nul_line(tmp_path: Path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "a.jsonl").write_bytes(jsonl([replay(1)]) + b"\x00\n")
    (inbox / "b.jsonl").write_bytes(jsonl([replay(2)]))
    source = add_source(name="drop", kind="directory", settings={"path": str(inbox)})
    run = pull_source(source)
    assert (run.fetched, run.new, run.rejected, run.error) == (3, 2, 1, "")
    assert sorted(p.name for p in (inbox / "done").iterdir()) == ["a.jsonl", "b.jsonl"]


def test_a_directory_file_that_fails_unexpectedly_costs_only_itself(tmp_path: Path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "a.jsonl").write_bytes(jsonl([replay(1)]))
    (inbox / "b.jsonl").write_bytes(jsonl([replay(2)]))
    real = readers._read_json_lines

    def faulty(stream):  # a fault of ours on the first file only
        if stream.name.endswith("a.jsonl"):
            raise TypeError("a bug")
        return real(stream)

    monkeypatch.setattr(readers, "_read_json_lines", faulty)
    monkeypatch.setattr(readers, "_FORMATS", ((".jsonl", faulty),))
    run = pull_source(add_source(name="drop", kind="directory", settings={"path": str(inbox)}))
    assert (run.new, run.error) == (1, "a.jsonl: TypeError: a bug")
    assert sorted(p.name for p in (inbox / "failed").iterdir()) == ["a.jsonl", "a.jsonl.reason"]


def test_a_lone_surrogate_in_a_feed_replay_is_rejected_and_the_cursor_moves(fake_feed):  # noqa: F811
    """Item 2: storing the rejection used to raise UnicodeEncodeError and roll the page back."""
    feed = fake_feed([replay(1), replay(2, names=("\ud800", "b")), replay(3)])
    source = http_source(feed.url, page_size=10)
    run = pull_source(source)
    assert (run.fetched, run.new, run.rejected, run.error) == (3, 2, 1, "")
    rejected = RejectedReplay.objects.get()
    assert '"name": "\\ud800"' in rejected.raw and rejected.reason
    source.refresh_from_db()
    assert source.cursor == "3"


def test_fingerprints_of_surrogates_stay_distinct_and_stable():
    lines = [{"name": "\ud800"}, {"name": "\ud801"}, {"name": "\ud800"}]
    result = store_replays(source=file_import_source(), replays=iter_replay_payloads(lines))
    assert (result.rejected, RejectedReplay.objects.count()) == (3, 2)
    rejected = RejectedReplay.objects.order_by("raw")
    assert [r.raw for r in rejected] == ['{"name": "\\ud800"}', '{"name": "\\ud801"}']
    assert {r.reason for r in rejected} == {"missing id" + ESCAPED_NOTE}


def test_one_stray_quote_in_a_csv_costs_only_its_line(tmp_path: Path):
    """Item 6: the quote used to join the lines after it into one rejected record."""
    rows = [
        f"c-{n},{1_700_000_000 + n * 60},5,1,{n % 97 + 1},a,SO,pc,{n % 97 + 200},b,KY,ps\n"
        for n in range(5_000)
    ]
    rows[100] = 'c-100,1700006000,5,1,1,"a,SO,pc,200,b,KY,ps\n'
    path = tmp_path / "quote.csv"
    path.write_text(CSV_HEADER + "".join(rows))
    records = list(iter_replay_file(path))
    assert len(records) == 5_000
    assert [(r.line, r.error) for r in records if r.error] == [
        (102, "invalid CSV: unterminated quote (a record must fit on one line)")
    ]
    result = store_replays(source=file_import_source(), replays=records)
    assert (result.new, result.rejected) == (4_999, 1)


def test_blank_lines_never_reach_python_code(tmp_path: Path):
    """Item 9: each blank line used to cost a turn of a Python loop (69 s for 256 MiB)."""
    blank = 1 << 20
    path = tmp_path / "blank.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n \r\n" * (blank // 2) + jsonl([replay(1)])))
    lines_run = 0

    def count(frame, event, arg):
        nonlocal lines_run
        if frame.f_code.co_filename == readers.__file__:
            if event == "line":
                lines_run += 1
            return count
        return None

    sys.settrace(count)
    try:
        records = list(iter_replay_file(path))
    finally:
        sys.settrace(None)
    assert [(r.line, r.error) for r in records] == [(blank + 1, None)]
    assert lines_run < 1_000


def test_a_feed_item_nested_too_deeply_to_show_is_rejected():
    deep: list = []
    for _ in range(5_000):
        deep = [deep]
    items = [replay(1), {"id": deep}, replay(2)]
    result = store_replays(source=file_import_source(), replays=iter_replay_payloads(items))
    assert (result.new, result.rejected) == (2, 1)
    assert RejectedReplay.objects.get().reason == "nested too deeply"
