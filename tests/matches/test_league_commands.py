"""simulate_league -> import_replays -> recompute_ratings -> export_ratings, end to end."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from matches.models import Match
from players.models import Player, Rating

pytestmark = pytest.mark.django_db


def test_the_same_seed_writes_the_same_files(tmp_path):
    first, second = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    call_command("simulate_league", players=50, games=500, seed=5, out=first, stdout=io.StringIO())
    call_command("simulate_league", players=50, games=500, seed=5, out=second, stdout=io.StringIO())
    assert first.read_bytes() == second.read_bytes()
    skills = (tmp_path / "a.jsonl.gz.skills.csv").read_text().splitlines()
    assert skills[0] == "player_id,character,skill" and len(skills) > 50


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
    }
    top = Rating.objects.exclude(player=hidden).order_by("-value").first()
    best = max(rows, key=lambda r: r["value"])
    assert (best["player_id"], best["value"]) == (top.player_id, pytest.approx(top.value))

    table = tmp_path / "ratings.csv"
    call_command("export_ratings", format="csv", out=table, stderr=io.StringIO())
    with table.open() as handle:
        assert len(list(csv.DictReader(handle))) == len(rows)
