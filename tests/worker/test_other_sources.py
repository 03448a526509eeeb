"""The `directory` and `simulator` sources, the sources/status commands and the ops page."""

from __future__ import annotations

import gzip
import json
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from matches.models import IngestRun, Match, PendingMatch, RejectedReplay, ReplaySource
from matches.sources import pulling
from matches.sources.base import CursorMoved, store_page
from matches.sources.pulling import (
    SIMULATOR_SOURCE,
    add_source,
    ensure_simulator_source,
    follow_enabled_sources,
    pull_enabled_sources,
    pull_source,
)
from tests.factories import PlayerFactory, replay

pytestmark = pytest.mark.django_db


def jsonl(replays: list[dict]) -> str:
    return "".join(json.dumps(item) + "\n" for item in replays)


def test_directory_imports_each_new_file_once_and_moves_it(tmp_path: Path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "a.jsonl").write_text(jsonl([replay(1), replay(2)]) + "{broken\n")
    with gzip.open(inbox / "b.jsonl.gz", "wt") as stream:
        stream.write(jsonl([replay(2), replay(3)]))
    (inbox / "c.csv").write_text(
        "id,played_at,floor,winner,p1_id,p1_name,p1_character,p1_platform,"
        "p2_id,p2_name,p2_character,p2_platform\n"
        "c-1,2026-11-02T00:00:00Z,5,1,1,one,SO,pc,2,two,KY,ps\n"
    )
    (inbox / "d.jsonl.gz").write_bytes(gzip.compress(jsonl([replay(4)]).encode())[:-12])
    (inbox / "e.csv").write_text("not,the,header\n")
    (inbox / "notes.txt").write_text("not a replay file")
    source = add_source(name="drop", kind="directory", settings={"path": str(inbox)})
    run = pull_source(source)
    assert (run.fetched, run.new, run.duplicate, run.rejected) == (6, 4, 1, 1)
    assert sorted(p.name for p in (inbox / "done").iterdir()) == ["a.jsonl", "b.jsonl.gz", "c.csv"]
    failed = sorted(p.name for p in (inbox / "failed").iterdir())
    assert failed == ["d.jsonl.gz", "d.jsonl.gz.reason", "e.csv", "e.csv.reason"]
    assert "header" in (inbox / "failed" / "e.csv.reason").read_text()
    assert "d.jsonl.gz" in run.error and "e.csv" in run.error
    assert (inbox / "notes.txt").exists()
    assert RejectedReplay.objects.get().reason.startswith("invalid JSON")
    (inbox / "a.jsonl").write_text(jsonl([replay(9)]))  # the same name again: a new file
    run = pull_source(source)
    assert (run.fetched, run.new, run.error) == (1, 1, "")
    assert len(list((inbox / "done").iterdir())) == 4


def test_directory_that_does_not_exist_is_an_error_on_the_run(tmp_path: Path):
    source = add_source(name="drop", kind="directory", settings={"path": str(tmp_path / "no")})
    assert "no such folder" in pull_source(source).error


def test_simulator_produces_the_games_played_so_far_and_goes_on():
    start = (timezone.now() - timedelta(seconds=100)).replace(microsecond=0)
    source = add_source(
        name="sim",
        kind="simulator",
        settings={"start": start.isoformat(), "players": 50, "rate": 1.0, "page_size": 40},
    )
    run = pull_source(source)
    assert run.error == "" and 100 <= run.new <= 102
    source.refresh_from_db()
    assert source.cursor == str(Match.objects.count())
    assert not Match.objects.filter(played_at__gt=timezone.now()).exists()
    run = pull_source(source)
    assert run.duplicate == 0 and run.new <= 3
    source.refresh_from_db()
    assert source.cursor == str(Match.objects.count())


def test_a_cursor_moved_by_another_pull_stops_this_one():
    source = ReplaySource.objects.create(name="s", kind="http", settings={}, cursor="5")
    with pytest.raises(CursorMoved):
        store_page(source=source, run=None, replays=[], after="3", next_cursor="6")
    source.refresh_from_db()
    assert source.cursor == "5"


def test_ensure_simulator_creates_one_source_once():
    source, created = ensure_simulator_source()
    assert created and source.name == SIMULATOR_SOURCE and source.enabled
    assert ensure_simulator_source() == (source, False)
    assert 17_000 < pull_enabled_sources()[0].new < 17_500  # a day of backlog at 0.2 games/s


def test_following_pulls_every_pause_until_the_window_ends(tmp_path: Path, monkeypatch):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    add_source(name="drop", kind="directory", settings={"path": str(inbox)})
    clock = [0.0]
    dropped = iter([[replay(1), replay(2)], [], [replay(3)], [replay(4)], [replay(5)]])

    def sleep(seconds: float) -> None:  # time passes, and the feed delivers the next file
        clock[0] += seconds
        (inbox / f"at-{clock[0]:.1f}.jsonl").write_text(jsonl(next(dropped)))

    monkeypatch.setattr(pulling.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(pulling.time, "sleep", sleep)
    (inbox / "first.jsonl").write_text(jsonl([replay(0)]))
    stored = []
    # Pulls at 0, 0.5, 1.0, 1.5 and 2.0 s: the next one would start past the window.
    new = follow_enabled_sources(seconds=2.4, pause=0.5, stored=lambda: stored.append(clock[0]))
    assert new == 5 == Match.objects.count()
    assert stored == [0.0, 0.5, 1.5, 2.0]  # not after the pull that found an empty file
    # Without a window it is one pull.
    (inbox / "last.jsonl").write_text(jsonl([replay(6)]))
    assert follow_enabled_sources(seconds=0, pause=0.5, stored=lambda: None) == 1
    assert clock[0] == 2.0


def test_sources_command():
    out = StringIO()
    call_command("sources", "add", "feed", "http", "url=http://127.0.0.1:9/", stdout=out)
    call_command("sources", "add", "sim", "simulator", "start=2026-01-01T00:00:00+00:00")
    source = ReplaySource.objects.get(name="feed")
    assert source.settings["url"] == "http://127.0.0.1:9/" and source.settings["page_size"] == 1000
    with pytest.raises(CommandError, match="unknown settings"):
        call_command("sources", "add", "x", "http", "url=http://h/", "pages=1")
    with pytest.raises(CommandError, match="missing settings start"):
        call_command("sources", "add", "y", "simulator", "rate=1")
    with pytest.raises(CommandError, match="exists already"):
        call_command("sources", "add", "feed", "http", "url=http://h/")
    call_command("sources", "disable", "feed")
    assert not ReplaySource.objects.get(name="feed").enabled
    call_command("sources", "enable", "feed")
    assert ReplaySource.objects.get(name="feed").enabled
    with pytest.raises(CommandError, match="no source"):
        call_command("sources", "enable", "nope")
    out = StringIO()
    call_command("sources", "list", stdout=out)
    assert "feed" in out.getvalue() and "sim" in out.getvalue()
    out = StringIO()
    call_command("sources", "ensure-simulator", stdout=out)
    assert out.getvalue().startswith("kept sim")


def _history() -> None:
    source = ReplaySource.objects.create(name="feed", kind="http", settings={"url": "http://h/"})
    now = timezone.now()
    IngestRun.objects.create(
        source=source, started_at=now, finished_at=now, fetched=9, new=7, duplicate=1, rejected=1
    )
    IngestRun.objects.create(source=source, started_at=now, error="page after '3': HTTP 500")
    RejectedReplay.objects.create(
        source=source, raw='{"id": 1}', fingerprint="f", reason="unknown character", created_at=now
    )
    match = Match.objects.create(
        source=source,
        source_replay_id="m",
        played_at=now,
        ingested_at=now,
        player_a=PlayerFactory(id="1"),
        character_a_id=0,
        player_b=PlayerFactory(id="2"),
        character_b_id=1,
        winner="A",
    )
    PendingMatch.objects.create(match=match, played_at=now)  # stored, waiting to be rated


def test_status_command_prints_sources_runs_pending_and_rejected():
    _history()
    out = StringIO()
    call_command("status", stdout=out)
    text = out.getvalue()
    assert "feed (http, enabled" in text
    assert "fetched 9, new 7, duplicate 1, rejected 1" in text
    assert "HTTP 500" in text and "running or interrupted" in text
    assert "pending: 1 matches" in text
    assert "unknown character" in text


def test_operations_page_in_the_admin(admin_client):
    _history()
    changelist = admin_client.get("/admin/matches/replaysource/")
    assert b"/admin/matches/replaysource/operations/" in changelist.content
    page = admin_client.get("/admin/matches/replaysource/operations/")
    assert page.status_code == 200
    text = page.content.decode()
    for expected in ("feed", "HTTP 500", "unknown character", "waiting to be rated"):
        assert expected in text


def test_operations_page_is_for_staff_only(client):
    assert client.get("/admin/matches/replaysource/operations/").status_code == 302


def test_admin_form_checks_source_settings(admin_client):
    response = admin_client.post(
        "/admin/matches/replaysource/add/",
        {"name": "x", "kind": "http", "settings": '{"url": "nope"}', "cursor": "", "enabled": "on"},
    )
    assert response.status_code == 200 and b"url must be" in response.content
    assert not ReplaySource.objects.exists()
