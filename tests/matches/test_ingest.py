"""Storing replays: each game once, every rejection kept with its reason, names remembered."""

from __future__ import annotations

import csv
import gzip
import json
import threading
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from matches.models import IngestRun, Match, PendingMatch, RejectedReplay
from matches.replays.readers import iter_replay_payloads
from matches.services import bulk
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.sources.pulling import add_source, pull_source
from players.models import Player, PlayerName
from tests import databases
from tests.factories import BASE_TIME, replay

pytestmark = pytest.mark.django_db

CSV_HEADER = (
    "id,played_at,floor,winner,p1_id,p1_name,p1_character,p1_platform,"
    "p2_id,p2_name,p2_character,p2_platform"
).split(",")
P1, P2, P3 = "230129212655563979", "210611080522104011", "300000000000000003"


def store(replays: list[object]):
    return store_replays(source=file_import_source(), replays=iter_replay_payloads(replays))


def write_jsonl(path: Path, replays: list[object], compress: bool = False) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in replays)
    if compress:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def test_a_replay_is_stored_once_with_sides_in_id_order():
    result = store([replay(1, P1, P2, winner=1), replay(1, P1, P2, winner=1)])
    assert (result.read, result.new, result.duplicate, result.rejected) == (2, 1, 1, 0)
    match = Match.objects.get()
    # P2 has the smaller id, so it is side A; P1 (player 1 in the replay) won, i.e. side B.
    assert (match.player_a_id, match.player_b_id, match.winner) == (P2, P1, "B")
    assert (match.character_a.code, match.character_b.code) == ("KY", "SO")
    assert (match.platform_a, match.platform_b) == ("ps", "pc")


def test_the_same_game_from_another_source_with_sides_swapped_is_a_duplicate():
    store([replay(1, P1, P2)])
    swapped = replay(1, P2, P1, winner=2, characters=("KY", "SO"))
    swapped["id"] = "another-id"
    result = store_replays(source=file_import_source(), replays=iter_replay_payloads([swapped]))
    assert (result.new, result.duplicate) == (0, 1)
    assert Match.objects.count() == 1


def test_invalid_replays_are_rejected_with_reasons_and_the_rest_goes_on():
    bad = [
        replay(2, P1, P2, winner=3),
        replay(3, P1, P1),
        replay(4, P1, P2, characters=("ZZ", "SO")),
        {"players": []},
        "not an object",
    ]
    result = store([replay(1, P1, P2), *bad, replay(5, P1, P3)])
    assert (result.read, result.new, result.rejected) == (7, 2, 5)
    reasons = set(RejectedReplay.objects.values_list("reason", flat=True))
    assert len(reasons) == 5
    assert any("winner" in r for r in reasons)
    assert any("ZZ" in r for r in reasons)
    assert all(r.raw for r in RejectedReplay.objects.all())


def test_a_rejected_replay_delivered_again_is_kept_once():
    store([replay(1, P1, P2, winner=0)])
    store([replay(1, P1, P2, winner=0)])
    assert RejectedReplay.objects.count() == 1


def test_players_keep_their_latest_name_and_every_name_they_used():
    store(
        [
            replay(1, P1, P2, names=("Old Name", "kyo")),
            replay(3, P1, P2, names=("New Name", "kyo")),
            replay(2, P1, P2, names=("Middle Name", "kyo")),  # arrives late
        ]
    )
    player = Player.objects.get(id=P1)
    assert player.name == "New Name"
    assert player.first_seen == BASE_TIME + timedelta(minutes=1)
    assert player.last_seen == BASE_TIME + timedelta(minutes=3)
    assert set(PlayerName.objects.filter(player=player).values_list("name", flat=True)) == {
        "Old Name",
        "Middle Name",
        "New Name",
    }
    store([replay(4, P1, P2, names=("Old Name", "kyo"))])
    old = PlayerName.objects.get(player=player, name="Old Name")
    assert old.last_seen == BASE_TIME + timedelta(minutes=4)
    assert Player.objects.get(id=P1).name == "Old Name"


def test_hostile_names_are_rejected_or_stored_exactly():
    script, rtl = "<script>alert(1)</script>", "abc\u202edef"
    result = store(
        [
            replay(1, P1, P2, names=(script, rtl)),
            replay(2, P1, P3, names=("x" * 10_000, "ok")),
            replay(3, P1, P3, names=("nul\x00byte", "ok")),
        ]
    )
    assert (result.new, result.rejected) == (1, 2)
    assert Player.objects.get(id=P1).name == script
    assert Player.objects.get(id=P2).name == rtl
    assert RejectedReplay.objects.filter(raw__contains="x" * 1000).exists()


def test_a_game_reported_in_the_future_is_stored_now_with_its_reported_time():
    future = timezone.now() + timedelta(days=2)
    store([replay(1, P1, P2, played_at=future)])
    match = Match.objects.get()
    assert match.reported_at == future
    assert match.played_at < future - timedelta(days=1)


def _future_games() -> list[dict]:
    """Three distinct games between one pair, reported two days ahead of the clock."""
    future = timezone.now().replace(microsecond=0) + timedelta(days=2)
    return [replay(n, P1, P2, played_at=future + timedelta(minutes=n)) for n in (1, 2, 3)]


def _later(monkeypatch, hours: int = 1) -> None:
    """Move the ingestion clock on, as a later pull of the same file would see it."""
    moved = timezone.now() + timedelta(hours=hours)
    monkeypatch.setattr(timezone, "now", lambda: moved)


def test_distinct_future_games_of_one_pair_are_all_stored_and_stored_once(monkeypatch):
    games = _future_games()
    first = store(games)
    assert (first.new, first.duplicate) == (3, 0)
    _later(monkeypatch)
    again = store(games)
    assert (again.new, again.duplicate) == (0, 3)
    reported = sorted(Match.objects.values_list("reported_at", flat=True))
    assert reported == [datetime.fromisoformat(game["played_at"]) for game in games]


@pytest.mark.parametrize("stored_as_reported", [False, True])
def test_a_future_game_equal_to_a_stored_one_by_reported_time_is_a_duplicate(
    settings, stored_as_reported
):
    game = _future_games()[0]
    if stored_as_reported:  # a source trusted with a larger skew stored the time as is
        settings.REPLAY_MAX_CLOCK_SKEW_SECONDS = 10 * 24 * 3600
    assert store([game]).new == 1
    settings.REPLAY_MAX_CLOCK_SKEW_SECONDS = 300
    other = add_source(name="other", kind="directory", settings={"path": "unused"})
    swapped = {**game, "id": "elsewhere", "players": game["players"][::-1], "winner": 2}
    result = store_replays(source=other, replays=iter_replay_payloads([swapped]))
    assert (result.new, result.duplicate) == (0, 1)


def test_a_directory_source_pulling_future_games_again_later_adds_nothing(tmp_path, monkeypatch):
    games = _future_games()
    source = add_source(name="drop", kind="directory", settings={"path": str(tmp_path)})
    write_jsonl(tmp_path / "a.jsonl", games)
    run = pull_source(source)
    assert (run.new, run.duplicate) == (3, 0)
    _later(monkeypatch)
    write_jsonl(tmp_path / "a.jsonl", games)
    run = pull_source(source)
    assert (run.new, run.duplicate, run.error) == (0, 3, "")
    assert Match.objects.count() == 3


def test_import_command_reads_jsonl_gzip_and_csv_and_is_idempotent(tmp_path, capsys):
    plain = write_jsonl(tmp_path / "a.jsonl", [replay(1, P1, P2), replay(2, P1, P2)])
    packed = write_jsonl(tmp_path / "b.jsonl.gz", [replay(3, P1, P3), "garbage"], compress=True)
    table = tmp_path / "c.csv"
    with table.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "id",
                "played_at",
                "floor",
                "winner",
                "p1_id",
                "p1_name",
                "p1_character",
                "p1_platform",
                "p2_id",
                "p2_name",
                "p2_character",
                "p2_platform",
            ]
        )
        writer.writerow(
            ["c-1", "2026-11-21T14:03:11Z", 7, 2, P2, "kyo", 1, "ps", P3, "three", "SO", ""]
        )

    call_command("import_replays", str(plain), str(packed), str(table))
    assert capsys.readouterr().out.strip().endswith("read 5, new 4, duplicate 0, rejected 1")
    call_command("import_replays", str(plain), str(packed), str(table))
    assert capsys.readouterr().out.strip().endswith("read 5, new 0, duplicate 4, rejected 1")
    assert Match.objects.count() == 4
    assert RejectedReplay.objects.count() == 1
    assert IngestRun.objects.count() == 6
    from_csv = Match.objects.get(source_replay_id="c-1")
    assert from_csv.floor == 7 and from_csv.winner == "B"


def test_import_command_refuses_a_missing_file(tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_replays", str(tmp_path / "missing.jsonl"))


def _players_and_names() -> tuple[list[tuple], list[tuple]]:
    players = list(
        Player.objects.order_by("id").values_list("id", "name", "first_seen", "last_seen")
    )
    names = list(
        PlayerName.objects.order_by("player_id", "name").values_list(
            "player_id", "name", "first_seen", "last_seen"
        )
    )
    return players, names


def _name_changing_games() -> list[dict]:
    return [
        replay(5, P1, P2, names=("Five", "kyo")),
        replay(1, P1, P3, names=("One", "third")),
        replay(4, P2, P3, names=("kyo", "Third Renamed")),
        replay(2, P1, P2, names=("Two", "kyo-early")),
        replay(3, P3, P1, names=("third", "Three")),
    ]


def test_players_written_once_per_transaction_equal_players_written_once(monkeypatch):
    store(_name_changing_games())
    in_one_transaction = _players_and_names()
    Match.objects.all().delete()
    Player.objects.all().delete()
    # Players written after every two, and a chunk per game: five writes.
    monkeypatch.setattr("matches.services.ingest.FIRST_LOAD_PLAYERS_PER_WRITE", 2)
    result = store_replays(
        source=file_import_source(),
        replays=iter_replay_payloads(_name_changing_games()),
        chunk_size=1,
    )
    assert (result.read, result.new) == (5, 5)
    assert _players_and_names() == in_one_transaction
    latest_names = {player_id: name for player_id, name, _, _ in in_one_transaction[0]}
    assert latest_names == {P1: "Five", P2: "kyo", P3: "Third Renamed"}


def _import_failing_on_the_fourth_chunk(monkeypatch) -> None:
    """Import the name-changing games a game a chunk, the fourth chunk's insert failing."""
    from matches.services import ingest

    real_insert, calls = ingest._insert_matches, []

    def insert_failing_on_the_fourth_chunk(rows):
        calls.append(rows)
        if len(calls) == 4:
            raise RuntimeError("database went away")
        return real_insert(rows)

    with monkeypatch.context() as patched:
        patched.setattr(ingest, "_insert_matches", insert_failing_on_the_fourth_chunk)
        with pytest.raises(RuntimeError):
            _import_a_game_a_chunk()


def _import_a_game_a_chunk():
    return store_replays(
        source=file_import_source(),
        replays=iter_replay_payloads(_name_changing_games()),
        chunk_size=1,
    )


def test_an_import_that_fails_midway_keeps_whole_transactions(monkeypatch):
    """Games and the players they name commit together: no stored game lacks its players."""
    monkeypatch.setattr("matches.services.ingest.PLAYERS_PER_TRANSACTION", 2)
    store([replay(99, P1, P2)])  # not a first load, which is one transaction
    _import_failing_on_the_fourth_chunk(monkeypatch)
    stored = Match.objects.count() - 1
    assert 0 < stored < 5
    players = set(Player.objects.values_list("id", flat=True))
    for a, b in Match.objects.values_list("player_a_id", "player_b_id"):
        assert {a, b} <= players


def test_a_first_load_is_one_transaction_however_many_players_it_meets(monkeypatch):
    monkeypatch.setattr("matches.services.ingest.FIRST_LOAD_PLAYERS_PER_WRITE", 2)
    _import_failing_on_the_fourth_chunk(monkeypatch)
    assert not Match.objects.exists() and not Player.objects.exists()
    # Run again, it loads everything, the players written at each fill.
    result = _import_a_game_a_chunk()
    assert (result.new, Match.objects.count(), Player.objects.count()) == (5, 5, 3)
    latest_names = dict(Player.objects.values_list("id", "name"))
    assert latest_names == {P1: "Five", P2: "kyo", P3: "Third Renamed"}


def test_a_first_load_sets_indexes_aside_and_builds_every_one_back(monkeypatch):
    from matches.services import ingest

    tables = (Match, Player, PlayerName)
    before = databases.index_definitions(*tables)
    assert len(before) >= 15
    set_aside = []
    real_indexes_built_after = ingest.bulk.indexes_built_after

    def recorded(models, **options):
        set_aside.append([model.__name__ for model in models])
        return real_indexes_built_after(models, **options)

    monkeypatch.setattr(ingest.bulk, "indexes_built_after", recorded)
    assert store(_name_changing_games()).new == 5
    assert set_aside == [["Match", "Player", "PlayerName"]]
    assert databases.index_definitions(*tables) == before
    # The conflict checks held during the load, and the next load keeps every index.
    assert store([*_name_changing_games(), replay(6, P1, P3)]).new == 1
    assert set_aside == [["Match", "Player", "PlayerName"]]
    assert Match.objects.count() == 6
    assert PlayerName.objects.filter(name__iexact="third renamed").count() == 1


def test_a_first_load_that_fails_leaves_no_games_and_every_index(monkeypatch):
    from matches.services import ingest

    tables = (Match, Player, PlayerName)
    before = databases.index_definitions(*tables)

    def failing_player_write(sightings):
        raise RuntimeError("database went away")

    monkeypatch.setattr(ingest, "_write_sightings", failing_player_write)
    with pytest.raises(RuntimeError):
        store(_name_changing_games())
    assert not Match.objects.exists()
    assert databases.index_definitions(*tables) == before


@pytest.mark.django_db(transaction=True)
def test_concurrent_imports_of_the_same_games_in_opposite_orders_do_not_deadlock():
    games = [replay(n, P1 if n % 2 else P3, P2) for n in range(1, 401)]
    source = file_import_source()
    errors: list[BaseException] = []

    def import_games(replays: list[dict]) -> None:
        try:
            store_replays(source=source, replays=iter_replay_payloads(replays), chunk_size=50)
        except BaseException as error:  # reported by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=import_games, args=(order,)) for order in (games, games[::-1])
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert Match.objects.count() == 400
    assert PendingMatch.objects.count() == 400


def test_an_import_analyzes_the_tables_only_when_it_adds_a_tenth_of_the_games(
    tmp_path, monkeypatch
):
    analyzed = []
    monkeypatch.setattr(bulk, "analyze", lambda tables: analyzed.append(len(analyzed)))
    players = [f"10000000000000{n:04d}" for n in range(40)]
    history = [replay(n, players[n % 40], players[(n * 7 + 3) % 40]) for n in range(400)]
    call_command("import_replays", str(write_jsonl(tmp_path / "history.jsonl", history)))
    assert analyzed == [0]  # into an empty table
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE matches_match")  # what the real call does
    later = [replay(n, players[n % 40], players[(n * 7 + 5) % 40]) for n in range(400, 430)]
    call_command("import_replays", str(write_jsonl(tmp_path / "later.jsonl", later)))
    assert Match.objects.count() == 430 and analyzed == [0]  # 30 games: under a tenth
    more = [replay(n, players[n % 40], players[(n * 7 + 5) % 40]) for n in range(430, 480)]
    call_command("import_replays", str(write_jsonl(tmp_path / "more.jsonl", more)))
    assert analyzed == [0, 1]  # 50 games: more than a tenth of the 400 last counted
