"""A file read in a child process stores exactly what the one-process path stores."""

from __future__ import annotations

import csv
import gzip
import io
import json
import multiprocessing
import os
import signal
from datetime import timedelta
from functools import partial
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import Min
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from matches.models import IngestRun, Match, PendingMatch, RejectedReplay
from matches.replays.batch import parse_batch as _parse_batch
from matches.replays.readers import CSV_COLUMNS, RawReplay, csv_payload, iter_replay_file
from matches.replays.validation import (
    InvalidReplay,
    epoch_microseconds,
    flat_replay,
)
from matches.replays.validation import (
    parse_replay as _parse_replay,
)
from matches.replays.validation import (
    plain_csv_replay as _plain_csv_replay,
)
from matches.services import file_import, ingest
from matches.services.file_import import file_import_source, store_replay_file
from matches.services.import_process import ImportProcess, ImportProcessFailed
from matches.services.ingest import store_replays
from players.models import Player, PlayerName
from players.seed_roster import SEED_IDS
from tests import databases

parse_replay = partial(_parse_replay, characters=SEED_IDS)
parse_batch = partial(_parse_batch, characters=SEED_IDS)
plain_csv_replay = partial(_plain_csv_replay, characters=SEED_IDS)

pytestmark = pytest.mark.django_db

P1, P2, P3 = "230129212655563979", "210611080522104011", "300000000000000003"
T = 1_787_892_709  # epoch seconds


def row(rid, played=T, floor="5", winner="1", p1=P1, n1="Sol", c1="SO", f1="pc", p2=P2,
        n2="kyo", c2="KY", f2="ps"):  # fmt: skip
    return [rid, str(played), floor, winner, p1, n1, c1, f1, p2, n2, c2, f2]


def awkward_rows() -> list[list[str]]:
    """Valid games in every form, repeats of both kinds, invalid ones of many reasons."""
    future = int((timezone.now() + timedelta(days=3)).timestamp())
    return [
        row("a1"),
        row("a2", T + 60, n1="Sol Renamed", f1="PC"),
        row("a1", T + 120),  # the same replay again: a repeat
        row("b1", T, p1=P2, p2=P1, n1="kyo", n2="Sol"),  # the same game: a repeat
        row("c1", T + 5, p2=P3, c1="3", c2=" ky "),  # character id and padded code
        row("c2", "2026-08-28T05:00:00.123456+02:00", p1=P3, n1="Third"),  # ISO time
        row("c3", future, floor="", p2=P3, n1="Sol", winner="2"),  # stored at ingestion
        row("c4", T + 7, floor="99", n1=" padded ", f2=""),
        row("d1", T + 9, p2=P1),  # against themself
        row("d2", T + 9, c1="ZZ"),
        row("d3", T + 9, winner="3"),
        row("d4", T + 9, n1="x" * 65),
        row("d5", T + 9, n1="bad\x01name"),
        row("d6", T + 9, floor="11"),
        row("d7", T + 9, f1="switch"),
        row("d8", 5),
        row("", T + 9),
        row("e\\1", T + 11, p2=P3, n2="back\\slash"),  # backslashes in an id and a name
        row("e2", T + 12, p1=P3, p2=P2, n1="Third\u200fmark"),  # a format character
        row("f1", T + 13),  # the time and players of a1 differ: new
        row("a2", T + 200, p2=P3),  # a repeat of a2 by id, though a new game...
        row("g1", T + 60, n1="Sol Renamed", f1="pc"),  # ...a2's game under another id
    ]


def write_csv(path: Path, rows: list[list[str]], extra_lines: str = "") -> Path:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(rows)
    path.write_text(text.getvalue() + extra_lines)
    return path


def stored() -> dict[str, object]:
    """Everything an import stores, ids counted from the first game's."""
    first = Match.objects.aggregate(first=Min("id"))["first"] or 0
    # A future game is stored at its ingestion time, which differs between two imports.
    ingested = set(Match.objects.values_list("ingested_at", flat=True))

    def seen(values: tuple) -> tuple:
        return tuple("ingested" if value in ingested else value for value in values)

    games = [
        seen((values[0] - first, *values[1:]))
        for values in Match.objects.order_by("id").values_list(
            "id", "source_replay_id", "played_at", "reported_at", "floor", "player_a_id",
            "character_a_id", "platform_a", "player_b_id", "character_b_id", "platform_b",
            "winner",
        )
    ]  # fmt: skip
    players = Player.objects.values_list(
        "id", "name", "platform", "floor", "first_seen", "last_seen"
    )
    names = PlayerName.objects.values_list("player_id", "name", "first_seen", "last_seen")
    return {
        "games": games,
        "reported_at_ingestion": [
            m.played_at == m.ingested_at for m in Match.objects.exclude(reported_at=None)
        ],
        "pending": sorted(
            seen((match_id - first, played))
            for match_id, played in PendingMatch.objects.values_list()
        ),
        "players": sorted(map(seen, players)),
        "names": sorted(map(seen, names)),
        "rejected": sorted(RejectedReplay.objects.values_list("raw", "reason")),
    }


def forget_everything() -> None:
    for model in (PendingMatch, Match, PlayerName, Player, RejectedReplay, IngestRun):
        model.objects.all().delete()


def both_ways(path: Path, after: Path | None = None) -> tuple[tuple, dict, tuple, dict]:
    """(counts, stored) of a file imported through the child process, then through one
    process; with `after`, into a database holding that file's games (a later load)."""
    source = file_import_source()

    def import_before() -> None:
        if after is not None:
            store_replays(source=source, replays=iter_replay_file(after))

    import_before()
    with pytest.MonkeyPatch.context() as patched:  # no falling back unnoticed
        patched.setattr(ingest, "store_replays", None)
        child = store_replay_file(source=source, path=path, chunk_size=4)
    in_child = stored()
    forget_everything()
    import_before()
    alone = store_replays(source=source, replays=iter_replay_file(path), chunk_size=4)
    return counts(child), in_child, counts(alone), stored()


def counts(result: ingest.IngestResult) -> tuple[int, int, int, int]:
    return (result.read, result.new, result.duplicate, result.rejected)


def test_a_csv_first_load_in_a_child_stores_what_one_process_stores(tmp_path: Path):
    path = write_csv(
        tmp_path / "games.csv",
        awkward_rows(),
        '"q1",1787892800,5,1,1,"quoted, name",SO,pc,2,b,KY,ps\nonly,three,cells\n"open quote,1\n',
    )
    child_counts, in_child, counts, alone = both_ways(path)
    assert child_counts == counts == (25, 10, 4, 11)
    assert in_child == alone
    assert in_child["reported_at_ingestion"] == [True]
    assert not Match.objects.filter(source_replay_id="g1").exists()


def test_a_gzipped_json_lines_first_load_in_a_child_stores_what_one_process_stores(
    tmp_path: Path,
):
    lines = [json.dumps(csv_payload(cells)) for cells in awkward_rows()]
    lines += ["{not json", '["a list"]', json.dumps({"id": "n1", "played_at": T})]
    path = tmp_path / "games.jsonl.gz"
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    child_counts, in_child, counts, alone = both_ways(path)
    assert child_counts == counts
    assert in_child == alone
    assert counts[1] > 0 and counts[3] > 0


def test_a_repeat_chain_keeps_what_conflict_skipping_keeps(tmp_path: Path):
    """The third game repeats the second by id, the second the first by moment: the
    second is skipped, so the third, repeating only a skipped game, is kept."""
    rows = [
        row("x1"),
        row("x2", p1=P2, p2=P1),  # the game of x1
        row("x2", T + 30, p2=P3),  # x2's id, another game
        row("x3", T + 30, p2=P3),  # x2's second game under its own id
    ]
    child_counts, in_child, counts, alone = both_ways(write_csv(tmp_path / "c.csv", rows))
    assert child_counts == counts == (4, 2, 2, 0)
    assert in_child == alone
    assert [game[1] for game in in_child["games"]] == ["x1", "x2"]


@pytest.mark.parametrize("players_per_transaction", [ingest.PLAYERS_PER_TRANSACTION, 2])
def test_a_later_load_in_a_child_stores_what_one_process_stores(
    tmp_path: Path, monkeypatch, players_per_transaction: int
):
    monkeypatch.setattr(ingest, "PLAYERS_PER_TRANSACTION", players_per_transaction)
    rows = awkward_rows()
    before = write_csv(tmp_path / "before.csv", [*rows[:3], *rows[17:19]])  # 4 games
    later = [*rows, row("h1", T + 300, p1=P3, n1="Third again"), row("a1", T + 400)]
    child_counts, in_child, counts, alone = both_ways(write_csv(tmp_path / "l.csv", later), before)
    assert child_counts == counts == (24, 6, 9, 9)
    assert in_child == alone
    assert PlayerName.objects.filter(player=P3, name="Third again").exists()


def test_a_daemonic_process_reads_on_a_thread(tmp_path: Path, monkeypatch):
    class Daemonic:
        daemon = True

    monkeypatch.setattr(file_import.multiprocessing, "current_process", Daemonic)
    monkeypatch.setattr(file_import, "ImportProcess", None)
    result = store_replay_file(
        source=file_import_source(), path=write_csv(tmp_path / "a.csv", [row("a")])
    )
    assert result.new == Match.objects.count() == 1


def test_bad_input_found_in_the_child_is_reported_as_bad_input(tmp_path: Path):
    path = tmp_path / "bad.csv"
    path.write_text("id,when\n1,2\n")
    with pytest.raises(CommandError, match="CSV header must be"):
        call_command("import_replays", str(path), stdout=io.StringIO())
    assert not Match.objects.exists()
    assert IngestRun.objects.get().error.endswith(
        f"CSV header must be: {','.join(CSV_COLUMNS)}[,version]"
    )


def test_an_unexpected_error_in_the_child_comes_with_its_traceback():
    with (
        ImportProcess(
            None, chunk_size=10, max_clock_skew=timedelta(), characters=SEED_IDS
        ) as child,
        pytest.raises(ImportProcessFailed, match="TypeError"),
    ):
        list(child.messages())


def test_a_child_that_dies_fails_the_load_which_leaves_nothing(tmp_path: Path, monkeypatch):
    before = databases.index_definitions(Match, Player, PlayerName)
    # Chunks larger than a pipe's buffer: the child waits to hand each over.
    path = write_csv(tmp_path / "a.csv", [row(f"g{n}", T + n) for n in range(20_000)])
    real_insert = file_import._insert_encoded_matches

    def insert_then_kill_the_child(*args):
        new = real_insert(*args)
        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGKILL)
        return new

    monkeypatch.setattr(file_import, "_insert_encoded_matches", insert_then_kill_the_child)
    with pytest.raises(ImportProcessFailed, match="died"):
        store_replay_file(source=file_import_source(), path=path, chunk_size=2_000)
    assert not Match.objects.exists() and not PendingMatch.objects.exists()
    assert databases.index_definitions(Match, Player, PlayerName) == before


def test_a_child_that_dies_in_a_later_load_keeps_the_committed_games_and_none_twice(
    tmp_path: Path, monkeypatch
):
    store_replay_file(source=file_import_source(), path=write_csv(tmp_path / "a.csv", [row("a")]))
    rows = [row(f"g{n}", T + n, p1=f"{n + 10}") for n in range(20_000)]
    path = write_csv(tmp_path / "b.csv", rows)
    # 2,000 new players a chunk: a commit after every third.
    monkeypatch.setattr(ingest, "PLAYERS_PER_TRANSACTION", 5_000)
    real_insert, inserts = file_import._insert_encoded_matches, []

    def insert_then_kill_the_child_at_the_fourth(*args):
        inserts.append(real_insert(*args))
        if len(inserts) == 4:
            for child in multiprocessing.active_children():
                os.kill(child.pid, signal.SIGKILL)
        return inserts[-1]

    monkeypatch.setattr(
        file_import, "_insert_encoded_matches", insert_then_kill_the_child_at_the_fourth
    )
    with pytest.raises(ImportProcessFailed, match="died"):
        store_replay_file(source=file_import_source(), path=path, chunk_size=2_000)
    # The first transaction (three chunks and their players) committed; the fourth chunk's not.
    assert Match.objects.count() == PendingMatch.objects.count() == 1 + 6_000
    assert Player.objects.count() == 2 + 6_000
    monkeypatch.setattr(file_import, "_insert_encoded_matches", real_insert)
    again = store_replay_file(source=file_import_source(), path=path, chunk_size=2_000)
    assert (again.new, again.duplicate) == (14_000, 6_000)
    assert Match.objects.count() == PendingMatch.objects.count() == 1 + 20_000


def _updated_in_this_transaction(model: type) -> tuple[int, int]:
    """(rows updated, of which heap-only) in the test's transaction so far."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_stat_get_xact_tuples_updated(%s::regclass), "
            "pg_stat_get_xact_tuples_hot_updated(%s::regclass)",
            [model._meta.db_table] * 2,
        )
        return cursor.fetchone()


def test_a_later_import_updates_players_and_names_without_touching_their_indexes(tmp_path: Path):
    """Seen again, a player keeps their name: the new versions of their rows stay on
    their pages (players 0017) and none of the seven or five indexes takes an entry."""
    opponent = "999999999999999999"
    players = [f"{n + 10:018d}" for n in range(600)]  # pages full at 100%
    first = [row(f"a{n}", T + n, p1=p, p2=opponent) for n, p in enumerate(players)]
    store_replay_file(source=file_import_source(), path=write_csv(tmp_path / "a.csv", first))
    again = [row(f"b{n}", T + 1_000 + n, p1=p, p2=opponent) for n, p in enumerate(players[::4])]
    store_replay_file(source=file_import_source(), path=write_csv(tmp_path / "b.csv", again))
    for model in (Player, PlayerName):
        updated, heap_only = _updated_in_this_transaction(model)
        assert updated == heap_only == len(again) + 1, model


cells = st.builds(
    row,
    st.sampled_from(["a", " a ", "", "a\tb", "é", "x" * 129]),
    st.sampled_from([str(T), f" {T}", "5", "9" * 12, "2026-08-28T05:00:00Z", "", "1e9"]),
    st.sampled_from(["", "1", "10", "99", "0", "05", " 5", "x"]),
    st.sampled_from(["1", "2", "0", "01", " 2", ""]),
    st.sampled_from([P1, P2, "", "12a", "١٢", "9" * 33, f" {P1}"]),
    st.sampled_from(["Sol", " Sol", "", "a\x00", "x" * 65, "\u200f", " "]),
    st.sampled_from(["SO", "so", "3", "27", "", " KY", "ZZ"]),
    st.sampled_from(["pc", "PS", "", " xbox", "wii"]),
)


@given(cells)
def test_the_plain_csv_path_accepts_only_what_parse_replay_accepts_alike(cells: list[str]):
    now = timezone.now()
    skew = timedelta(minutes=5)
    plain = plain_csv_replay(cells, epoch_microseconds(now + skew))
    try:
        parsed = flat_replay(parse_replay(csv_payload(cells), now=now, max_clock_skew=skew))
    except InvalidReplay:
        assert plain is None
    else:
        assert plain in (None, parsed)
    as_cells = RawReplay(1, ",".join(cells), None, None, cells)
    as_payload = RawReplay(1, ",".join(cells), csv_payload(cells), None)
    assert parse_batch([as_cells], now=now, max_clock_skew=skew) == parse_batch(
        [as_payload], now=now, max_clock_skew=skew
    )


def test_a_first_load_in_a_child_writes_players_whenever_enough_gather(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(ingest, "FIRST_LOAD_PLAYERS_PER_WRITE", 2)
    child_counts, in_child, counts, alone = both_ways(write_csv(tmp_path / "g.csv", awkward_rows()))
    assert child_counts == counts
    assert in_child == alone


def test_a_repeated_replay_in_a_first_load_changes_no_player(tmp_path: Path):
    """A replay id repeated with other contents (its player renamed, a new opponent) and
    a game repeated under another id (its players renamed): the first load drops both at
    its end, and neither renames a player or leaves one with no games (issue 35)."""
    rows = [
        row("d1"),
        row("d1", T + 60, n1="Impostor", p2=P3, n2="Newcomer"),
        row("d2", T, p1=P2, p2=P1, n1="kyo renamed", n2="Sol renamed"),
    ]
    child_counts, in_child, counts, alone = both_ways(write_csv(tmp_path / "d.csv", rows))
    assert child_counts == counts == (3, 1, 2, 0)
    assert in_child == alone
    assert sorted(Player.objects.values_list("id", "name")) == [(P2, "kyo"), (P1, "Sol")]
    assert sorted(PlayerName.objects.values_list("name", flat=True)) == ["Sol", "kyo"]
