"""Issue 35, item 5: the smaller holes an adversarial audit found, each as its attack."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from matches.models import IngestRun
from matches.replays.readers import iter_replay_payloads
from matches.services.file_import import file_import_source
from matches.services.ingest import (
    ABANDONED,
    IngestResult,
    finish_run,
    start_run,
    store_replays,
)
from players.api.examples import PLAYER_ID
from players.models import Player
from tests.factories import RatingFactory, replay

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
