"""Issue 35, item 5: the smaller holes an adversarial audit found, each as its attack."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from matches.models import IngestRun
from matches.replays.readers import iter_replay_payloads
from matches.services.file_import import file_import_source, store_replay_file
from matches.services.ingest import (
    ABANDONED,
    IngestResult,
    finish_run,
    start_run,
    store_replays,
)
from players.api.examples import PLAYER_ID
from players.models import Player, PlayerName
from tests.factories import BASE_TIME, RatingFactory, replay

V1 = "/api/v1"
FORMULA = "=cmd|' /C calc'!A0"


def exported_csv(tmp_path) -> list[dict[str, str]]:
    table = tmp_path / "ratings.csv"
    call_command("export_ratings", format="csv", out=table, stderr=io.StringIO())
    with table.open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.django_db
def test_csv_exports_neutralise_formulas_and_mark_cheaters(tmp_path):
    RatingFactory(player__name=FORMULA, player__cheater=True)
    RatingFactory(player__name="@SUM(1+1)")
    RatingFactory(player__name="Plain")

    rows = {row["name"]: row for row in exported_csv(tmp_path)}

    assert set(rows) == {"'" + FORMULA, "'@SUM(1+1)", "Plain"}
    assert rows["'" + FORMULA]["cheater"] == "True"
    assert rows["Plain"]["cheater"] == "False"


@pytest.mark.django_db
def test_zero_padded_ids_are_one_player():
    """The audit: ids 0089 and 89 became two players."""
    store = file_import_source()
    replays = [replay(1, "0089", "200"), replay(2, "89", "0000200"), replay(3, "089", "89")]

    result = store_replays(source=store, replays=iter_replay_payloads(replays))

    assert sorted(Player.objects.values_list("id", flat=True)) == ["200", "89"]
    assert (result.new, result.rejected) == (2, 1)  # a player cannot play themself


@pytest.mark.django_db
def test_a_killed_import_run_is_marked_abandoned_at_the_next_start():
    source = file_import_source()
    killed = IngestRun.objects.create(source=source, started_at=timezone.now())
    running = start_run(source)  # holds its lock: a live process

    later = start_run(source)

    killed.refresh_from_db()
    running.refresh_from_db()
    assert killed.finished_at is not None and killed.error == ABANDONED
    assert running.finished_at is None
    for run in (running, later):
        finish_run(run, IngestResult())
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
        )
        assert cursor.fetchone() == (0,)


def test_if_none_match_star_is_no_answer_for_a_missing_resource(api):
    missing = api.get(f"{V1}/players/999/", HTTP_IF_NONE_MATCH="*")
    present = api.get(f"{V1}/players/{PLAYER_ID}/", HTTP_IF_NONE_MATCH="*")

    assert missing.status_code == 404
    assert present.status_code == 304


def test_if_none_match_star_is_throttled(api, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon", "3/min")
    statuses = [api.get(f"{V1}/characters/", HTTP_IF_NONE_MATCH="*").status_code for _ in range(4)]
    assert statuses == [304, 304, 304, 429]


def test_a_client_cannot_make_cached_answers_link_to_https(api):
    """Without a proxy (NUM_PROXIES=0) anyone can send X-Forwarded-Proto."""
    forged = api.get(f"{V1}/rankings/?page_size=1", HTTP_X_FORWARDED_PROTO="https").json()

    assert forged["next"].startswith("http://testserver/")
    assert api.get(f"{V1}/rankings/?page_size=1").json()["next"] == forged["next"]


# Players and replays of their own: the API's league (the `api` fixture) stays in the
# database for the module.
P1, P2, P3 = "700000000000000001", "700000000000000002", "700000000000000003"
FIRST, SECOND = 900_001, 900_002


def _players_and_names() -> tuple[list[tuple], list[tuple]]:
    players = list(Player.objects.order_by("id").values_list("id", "name", "last_seen"))
    names = list(PlayerName.objects.order_by("player_id", "name").values_list("player_id", "name"))
    return players, names


def _impostor(n: int) -> dict:
    """Replay n's id again with other contents: its first player renamed, a new second
    player, a later time."""
    return replay(
        n,
        P1,
        P3,
        names=("impostor", "newcomer"),
        played_at=BASE_TIME + timedelta(hours=1, minutes=n - FIRST),
    )


def _game(n: int, player_1: str, player_2: str) -> dict:
    """Replay n, played n - FIRST + 1 minutes after BASE_TIME."""
    return replay(
        n,
        player_1,
        player_2,
        names=(f"name-{player_1[-4:]}", f"name-{player_2[-4:]}"),
        played_at=BASE_TIME + timedelta(minutes=n - FIRST + 1),
    )


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["feed", "file"])
def test_a_duplicate_replay_changes_nothing_at_all(tmp_path, path):
    """The audit: a repeated replay id with other contents was not stored, yet renamed
    its player and created a player with no games. Fed again later (a pull, or a file
    imported into a database that holds games), and repeated within one batch."""
    source = file_import_source()
    store_replays(source=source, replays=iter_replay_payloads([_game(FIRST, P1, P2)]))
    before = _players_and_names()
    # SECOND is new, then repeated.
    later = [_impostor(FIRST), _game(SECOND, P2, P1), _impostor(SECOND)]
    if path == "feed":
        result = store_replays(source=source, replays=iter_replay_payloads(later))
    else:
        result = store_replay_file(source=source, path=_jsonl(tmp_path, later))

    assert (result.new, result.duplicate) == (1, 2)
    players, names = _players_and_names()
    assert [row[:2] for row in players] == [row[:2] for row in before[0]]
    assert names == before[1]
    assert not Player.objects.filter(id=P3).exists()
    # The new game still saw its players: their last sighting moved to it.
    mine = [row[2] for row in players if row[0] in (P1, P2)]
    assert mine == [BASE_TIME + timedelta(minutes=SECOND - FIRST + 1)] * 2


def _jsonl(tmp_path, replays: list[dict]) -> Path:
    path = tmp_path / "replays.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in replays))
    return path
