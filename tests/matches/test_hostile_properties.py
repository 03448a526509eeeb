"""Property tests for issue 15: arbitrary text through the readers, the validator and the
storage of rejections. No exception escapes, every good replay is stored once and every
bad one is kept in RejectedReplay with its reason.

Each example runs in its own transaction, rolled back at its end, so examples share
the test's database without seeing each other's rows.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import tempfile
import unicodedata
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from unittest import mock

import pytest
from django.db import transaction
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from matches.models import Match, RejectedReplay
from matches.replays import readers
from matches.replays.readers import iter_replay_file, iter_replay_payloads
from matches.replays.validation import MAX_REPLAY_ID_LENGTH, InvalidReplay
from matches.replays.validation import parse_replay as _parse_replay
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from players.seed_roster import SEED_IDS
from tests.factories import replay

parse_replay = partial(_parse_replay, characters=SEED_IDS)

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 23, tzinfo=UTC)
PROPERTIES = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
# Every character, NUL, controls and lone surrogates included.
ANY_CHAR = st.characters(codec=None, categories=None)
HOSTILE_TEXT = st.one_of(
    st.text(ANY_CHAR, max_size=40),
    st.sampled_from(["\x00", "\ud800", "\udfff", "\u2028", '"', '{"id": "\\u0000"}', "{}"]),
    st.integers(1, 3).map(lambda n: "x" * 70_000 * n),  # longer than any line may be
)
JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(ANY_CHAR)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(ANY_CHAR), inner, max_size=3)
    ),
    max_leaves=12,
)


class Nested(list):
    """A list nested ``depth`` deep, shown short (a full repr would recurse too deep)."""

    def __init__(self, depth: int) -> None:
        value: list = []
        for _ in range(depth - 1):
            value = [value]
        super().__init__([value])
        self.depth = depth

    def __repr__(self) -> str:
        return f"Nested({self.depth})"


# As deep as a feed page's JSON decoder lets through (Python's recursion limit)...
HOSTILE_FIELDS = st.one_of(JSON_VALUES, st.integers(10, 900).map(Nested), HOSTILE_TEXT)
# ...and deeper, for the validator alone.
HOSTILE_VALUES = HOSTILE_FIELDS | st.integers(900, 5_000).map(Nested)


@contextmanager
def rolled_back():
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def good_replays(count: int) -> list[dict]:
    return [replay(n, played_at=1_700_000_000 + n * 60) for n in range(count)]


@st.composite
def mixed(draw: st.DrawFn, bad: st.SearchStrategy) -> list[tuple[bool, object]]:
    """Good replays and bad items in any order, as (good, item) pairs."""
    goods = [(True, item) for item in good_replays(draw(st.integers(0, 5)))]
    bads = [(False, item) for item in draw(st.lists(bad, max_size=6))]
    return draw(st.permutations(goods + bads))


def assert_stored(items: list[tuple[bool, object]], result, duplicates: int = 0) -> None:
    good = sum(ok for ok, _ in items) - duplicates
    bad = len(items) - good - duplicates
    expected = (len(items), good, duplicates, bad)
    assert (result.read, result.new, result.duplicate, result.rejected) == expected
    assert Match.objects.count() == good
    reasons = list(RejectedReplay.objects.values_list("reason", flat=True))
    assert len(reasons) == bad and all(reasons)


def hostile_replay(field: str, value: object, side: int | None, **extra: object) -> dict:
    item = {**replay(99, played_at=1_700_000_000), **extra}
    (item["players"][side] if side is not None else item)[field] = value
    return item


@PROPERTIES
@given(
    field=st.sampled_from(["id", "played_at", "floor", "winner", "players"]),
    player_field=st.sampled_from(["id", "name", "character", "platform"]),
    value=HOSTILE_VALUES,
    side=st.sampled_from([None, 0, 1]),
)
def test_the_validator_accepts_or_gives_a_reason(field, player_field, value, side):
    item = hostile_replay(player_field if side is not None else field, value, side)
    try:
        parsed = parse_replay(item, now=NOW)
    except InvalidReplay as invalid:
        assert invalid.reason
    else:  # what it accepts is storable: no NUL, surrogate or control character
        texts = [parsed.source_replay_id, *(p.id for p in parsed.players)]
        texts += [p.name for p in parsed.players]
        assert not any(unicodedata.category(char) in ("Cc", "Cs") for char in "".join(texts))
        assert len(parsed.source_replay_id) <= MAX_REPLAY_ID_LENGTH


@PROPERTIES
@given(items=mixed(HOSTILE_FIELDS.map(lambda v: {"bad": v})))
def test_feed_items_are_stored_or_kept_with_their_reason(items):
    """Bad items are wrapped with their position so that each is a distinct rejection."""
    items = [(ok, item if ok else [n, item]) for n, (ok, item) in enumerate(items)]
    with rolled_back():
        result = store_replays(
            source=file_import_source(), replays=iter_replay_payloads(item for _, item in items)
        )
        assert_stored(items, result)


@PROPERTIES
@given(
    items=mixed(
        st.tuples(st.sampled_from(["id", "played_at", "floor", "winner"]), HOSTILE_FIELDS)
        | st.tuples(st.sampled_from(["name", "id", "character"]), HOSTILE_FIELDS, st.just(0))
    )
)
@example(items=[(False, ("id", 0)), (False, ("id", "0"))])  # CI found this one
def test_feed_replays_with_hostile_fields_are_stored_or_kept(items):
    """A replay with one hostile field: valid by chance (then stored) or rejected. Two
    replays whose hostile ids read the same (0 and "0") are one game: the second is a
    duplicate."""
    built, seen_ids, duplicates = [], set(), 0
    for n, (ok, item) in enumerate(items):
        if not ok:
            field, value, *side = item
            item = {"id": f"h-{n}", "n": n}  # distinct unless the hostile field is the id
            item = hostile_replay(field, value, side[0] if side else None, **item)
            item["players"][1]["id"] = str(900 + n)
        try:
            replay_id = parse_replay(item, now=NOW).source_replay_id
        except InvalidReplay:
            ok = False
        else:
            ok, duplicates = True, duplicates + (replay_id in seen_ids)
            seen_ids.add(replay_id)
        built.append((ok, item))
    with rolled_back():
        result = store_replays(
            source=file_import_source(), replays=iter_replay_payloads(item for _, item in built)
        )
        assert_stored(built, result, duplicates)


def file_lines(good: list[dict], fmt: str) -> list[str]:
    if fmt == "csv":
        rows = []
        for item in good:
            one, two = item["players"]
            row = [item["id"], item["played_at"], item["floor"], item["winner"]]
            row += [one["id"], one["name"], one["character"], one["platform"]]
            row += [two["id"], two["name"], two["character"], two["platform"]]
            out = io.StringIO()
            csv.writer(out, lineterminator="").writerow(row)
            rows.append(out.getvalue())
        return rows
    return [json.dumps(item) for item in good]


@PROPERTIES
@given(
    good=st.integers(0, 5),
    bad=st.lists(
        st.one_of(HOSTILE_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary()),
        max_size=6,
    ),
    order=st.randoms(use_true_random=False),
    fmt=st.sampled_from(["jsonl", "jsonl.gz", "csv", "csv.gz"]),
)
def test_file_lines_are_stored_or_kept_with_their_reason(good, bad, order, fmt):
    """Bad lines start with their position, so each is distinct and never blank; a long
    one is kept once by its (empty) raw text, like every line too long to keep."""
    lines = [line.encode() for line in file_lines(good_replays(good), fmt.removesuffix(".gz"))]
    bad = [b"%d:" % n + line.replace(b"\n", b" ") for n, line in enumerate(bad)]
    too_long = sum(len(line.rstrip(b"\r")) > readers.MAX_LINE_BYTES for line in bad)
    body = lines + bad
    order.shuffle(body)
    header = ",".join(readers.CSV_COLUMNS).encode() + b"\n" if fmt.startswith("csv") else b""
    data = header + b"\n".join(body) + b"\n"
    with tempfile.TemporaryDirectory() as folder, rolled_back():
        path = Path(folder) / f"replays.{fmt}"
        path.write_bytes(gzip.compress(data) if fmt.endswith(".gz") else data)
        result = store_replays(source=file_import_source(), replays=iter_replay_file(path))
        assert (result.read, result.new, result.rejected) == (len(body), good, len(bad))
        assert Match.objects.count() == good
        reasons = list(RejectedReplay.objects.values_list("reason", flat=True))
        assert len(reasons) == len(bad) - max(too_long - 1, 0) and all(reasons)


def reference_lines(data: bytes) -> list[tuple[int, bytes | None]]:
    """What _lines must find, the slow and obvious way."""
    found = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if len(line) > readers.MAX_LINE_BYTES:
            found.append((number, None))
            continue
        line = line.rstrip(b"\r")
        if number == 1:
            line = line.removeprefix(b"\xef\xbb\xbf")
        if line and not line.isspace():
            found.append((number, line))
    return found


SHORT_LINE = st.binary(max_size=12).map(lambda b: b.replace(b"\n", b""))
LONG_LINE = st.integers(20, 60).map(lambda n: b"x" * n)
LINE_PARTS = st.sampled_from([b"", b" ", b"\r", b"\t \x0b\x0c", b"\xef\xbb\xbf", b"{}", b"a b"])


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(SHORT_LINE | LONG_LINE | LINE_PARTS, max_size=40),
    block=st.sampled_from([1, 5, 32, 1 << 20]),
    dense=st.sampled_from([1, 8, 10_000]),
    final_newline=st.booleans(),
)
def test_lines_are_found_with_their_numbers_whatever_the_blocks(lines, block, dense, final_newline):
    """Both ways of reading a block (split, or scanned when dense) and the seams between
    blocks give the lines a plain split gives. Lines are kept clear of the limit."""
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    with (
        mock.patch.object(readers, "MAX_LINE_BYTES", 16),
        mock.patch.object(readers, "_BLOCK_BYTES", block),
        mock.patch.object(readers, "_DENSE_LINE_BYTES", dense),
    ):
        assert list(readers._lines(io.BytesIO(data))) == reference_lines(data)
