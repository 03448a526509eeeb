"""simulate_league -> import_replays -> rate_matches / recompute_ratings -> refresh ->
export_ratings, end to end: the command line alone gives a complete site."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from matches.models import Match
from matches.selectors.lab import lab_has_scored_games
from matches.services.rating.incremental import rate_pending_matches
from players.models import Player, Rating

pytestmark = pytest.mark.django_db


def simulate(out, *arguments: str) -> None:
    call_command("simulate_league", "--out", str(out), *arguments, stdout=io.StringIO())


def game_times(path) -> list[datetime]:
    return [datetime.fromisoformat(json.loads(line)["played_at"]) for line in path.open()]


def test_the_same_seed_writes_the_same_files(tmp_path):
    first, second = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    for out in (first, second):
        simulate(out, "--players", "50", "--games", "500", "--seed", "5", "--end", "2026-06-01")
    assert first.read_bytes() == second.read_bytes()
    skills = (tmp_path / "a.jsonl.gz.skills.csv").read_text().splitlines()
    assert skills[0] == "player_id,character,skill" and len(skills) > 50
    matchups = (tmp_path / "a.jsonl.gz.matchups.csv").read_text().splitlines()
    assert matchups[0] == "character,opponent,offset" and len(matchups) == 1 + 27 * 26
    assert matchups == (tmp_path / "b.jsonl.gz.matchups.csv").read_text().splitlines()


def test_a_league_ends_now_unless_told_otherwise(tmp_path):
    before = timezone.now()
    simulate(tmp_path / "now.jsonl", "--players", "30", "--games", "500", "--days", "1")
    times = game_times(tmp_path / "now.jsonl")
    # 500 games a day: one every 173 s, the last one a step before the end.
    assert before - timedelta(minutes=4) < times[-1] <= timezone.now()
    assert times[0] >= before - timedelta(days=1, seconds=1)

    simulate(tmp_path / "start.jsonl", "--players", "30", "--games", "50", "--start", "2026-03-02")
    assert game_times(tmp_path / "start.jsonl")[0] == datetime(2026, 3, 2, tzinfo=UTC)
    simulate(tmp_path / "end.jsonl", "--players", "30", "--games", "50", "--end", "2026-03-02")
    times = game_times(tmp_path / "end.jsonl")
    assert times[0] == datetime(2026, 3, 2, tzinfo=UTC) - timedelta(days=90)
    assert times[-1] < datetime(2026, 3, 2, tzinfo=UTC)


def top_profiles(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<th scope="row"><a href="/player/(\d+)/([A-Z]{2})">', html)


def best_ranked_rating() -> Rating:
    return (
        Rating.objects.filter(
            deviation__lt=settings.RATING_LOW_DEVIATION,
            player__hidden=False,
            player__cheater=False,
        )
        .order_by("-value", "id")
        .select_related("character")
        .first()
    )


@pytest.mark.parametrize("route", ["import --rate", "import, rate_matches"])
def test_the_commands_alone_leave_the_pages_complete(tmp_path, client, route):
    """simulate_league, then import_replays --rate or import_replays and rate_matches:
    the rankings list ranked players and /stats is filled, with no task ever run."""
    league = tmp_path / "league.jsonl"
    simulate(league, "--players", "80", "--games", "4000", "--days", "20", "--seed", "4")
    if route == "import --rate":
        call_command("import_replays", str(league), "--rate", stdout=io.StringIO())
    else:
        call_command("import_replays", str(league), stdout=io.StringIO())
        call_command("rate_matches", stdout=io.StringIO())
    assert not Match.objects.pending().exists()

    rankings = client.get("/").content.decode()
    assert "No ranked ratings yet." not in rankings
    listed = top_profiles(rankings)
    assert len(listed) > 20
    best = best_ranked_rating()
    assert listed[0] == (best.player_id, best.character.code)

    statistics = client.get("/stats").content.decode()
    assert "have not been computed yet" not in statistics
    assert "4,000" in statistics  # the games played
    assert "No data yet." not in statistics


def test_refresh_decays_to_now_and_fills_the_statistics(tmp_path, client):
    """A league that ended ten days ago, rated without a refresh: `refresh` decays its
    ratings to now and computes the statistics the pages read."""
    league = tmp_path / "league.jsonl"
    ended = timezone.now() - timedelta(days=10)
    simulate(league, "--players", "60", "--games", "3000", "--days", "20",
             "--end", ended.isoformat())  # fmt: skip
    call_command("import_replays", str(league), stdout=io.StringIO())
    rate_pending_matches()
    assert "have not been computed yet" in client.get("/stats").content.decode()
    deviations = dict(Rating.objects.values_list("id", "deviation"))

    out = io.StringIO()
    call_command("refresh", stdout=out)
    assert out.getvalue() == "refreshed ratings, ranks and statistics\n"
    # Ten idle days or more: every deviation grew (up to the maximum).
    decayed = dict(Rating.objects.values_list("id", "deviation"))
    assert all(decayed[key] > value or value == 350 for key, value in deviations.items())
    statistics = client.get("/stats").content.decode()
    assert "have not been computed yet" not in statistics
    assert "3,000" in statistics


def test_refresh_without_the_lab_leaves_its_first_evaluation_to_the_daily_task(tmp_path, client):
    league = tmp_path / "league.jsonl"
    simulate(league, "--players", "40", "--games", "800")
    call_command("import_replays", str(league), stdout=io.StringIO())
    rate_pending_matches()

    call_command("refresh", "--no-lab", stdout=io.StringIO())
    assert not lab_has_scored_games()
    assert "have not been computed yet" not in client.get("/stats").content.decode()
    call_command("refresh", stdout=io.StringIO())
    assert lab_has_scored_games()


def test_a_simulated_league_imports_rates_and_exports(tmp_path):
    league = tmp_path / "league.jsonl"
    call_command(
        "simulate_league", players=120, games=6000, seed=3, out=league, stdout=io.StringIO()
    )
    out = io.StringIO()
    call_command("import_replays", str(league), stdout=out)
    assert out.getvalue().strip() == "read 6000, new 6000, duplicate 0, rejected 0"
    call_command("recompute_ratings", stdout=io.StringIO())
    assert not Match.objects.pending().exists()

    hidden = Player.objects.order_by("id").first()
    Player.objects.filter(id=hidden.id).update(hidden=True)
    lines = io.StringIO()
    call_command("export_ratings", stdout=lines)
    rows = [json.loads(line) for line in lines.getvalue().splitlines()]
    assert len(rows) == Rating.objects.exclude(player=hidden).count() > 120
    assert {row["player_id"] for row in rows}.isdisjoint({hidden.id})
    assert set(rows[0]) == {
        "player_id",
        "name",
        "character",
        "value",
        "deviation",
        "wins",
        "losses",
        "cheater",
    }
    top = Rating.objects.exclude(player=hidden).order_by("-value").first()
    best = max(rows, key=lambda r: r["value"])
    assert (best["player_id"], best["value"]) == (top.player_id, pytest.approx(top.value))

    table = tmp_path / "ratings.csv"
    call_command("export_ratings", format="csv", out=table, stderr=io.StringIO())
    with table.open() as handle:
        assert len(list(csv.DictReader(handle))) == len(rows)


def test_a_command_line_refresh_fills_the_lab_on_a_new_site(tmp_path, client):
    """Without a worker, the first refresh also evaluates the lab, as the task does."""
    league = tmp_path / "league.jsonl"
    simulate(league, "--players", "40", "--games", "600", "--days", "2")
    assert "No evaluation yet." in client.get("/lab").content.decode()
    call_command("import_replays", str(league), "--rate", stdout=io.StringIO())
    lab = client.get("/lab").content.decode()
    assert "No evaluation yet." not in lab
    assert "on 600 games" in lab
