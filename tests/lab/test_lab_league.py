"""The lab on a simulated league stored in the database, where the true skills are known."""

from __future__ import annotations

import io
import math
import re
from itertools import pairwise

import pytest
from django.core.management import call_command

from matches.ratings.metrics import PredictionMetrics
from matches.selectors.lab import latest_lab_report
from matches.services.evaluation import DEFAULT_SYSTEMS, evaluate, replay
from matches.services.evaluation import lab_system as make_system
from matches.services.tuning import GLICKO_SETTINGS, SYSTEM_NAMES
from matches.simulation.league import LeagueSimulator
from tests.lab.conftest import LEAGUE_GAMES

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def oracle_log_loss(stored_league: LeagueSimulator) -> float:
    """The log loss of the true probabilities (skills and matchup offsets) of every game."""
    league = LeagueSimulator(
        len({player_id for player_id, _ in stored_league.true_skills()}),
        seed=stored_league.seed,
        start=stored_league.start,
        rate=stored_league.rate,
    )
    metrics = PredictionMetrics()
    for game in league.games(LEAGUE_GAMES):
        metrics.add(league.win_probability(game), 1.0 if game["winner"] == 1 else 0.0)
    return metrics.log_loss


@pytest.fixture(scope="module")
def report(stored_league: LeagueSimulator, django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        return evaluate()


def systems(report: dict) -> dict[str, dict]:
    return {system["name"]: system for system in report["systems"]}


def test_every_system_scores_sanely_and_no_better_than_the_true_skills(report, oracle_log_loss):
    assert report["games"] == LEAGUE_GAMES
    assert report["excluded_games"] == 0
    for name, system in systems(report).items():
        overall, established = system["overall"], system["established"]
        assert overall["games"] == LEAGUE_GAMES
        assert 1000 < established["games"] < LEAGUE_GAMES
        assert overall["log_loss"] > oracle_log_loss, name
        assert 0.5 < overall["accuracy"] < 0.7, name
        assert 0.2 < overall["brier"] < 0.3, name
        bins = overall["calibration"]
        assert len(bins) == 10
        assert sum(row["games"] for row in bins) == LEAGUE_GAMES
        for row in bins:
            if row["games"]:
                assert row["low"] <= row["predicted"] < row["high"] or row["high"] == 1.0
    assert 0.6 < oracle_log_loss < 0.69


def test_observed_win_rates_rise_with_the_predicted_probability(report):
    """Calibration tables are monotone where they hold data: the predictions carry signal.

    (They are not close to the diagonal on this small league: the systems are
    overconfident, which the lab is there to show.)"""
    for name in ("glicko", "glicko2", "elo", "trueskill"):
        for table in ("overall", "established"):
            observed = [
                row["observed"]
                for row in systems(report)[name][table]["calibration"]
                if row["games"] >= 100
            ]
            assert len(observed) >= 4, (name, table)
            # Neighbouring bins near 0.5 may swap by sampling noise (about 0.015 here).
            assert all(high > low - 0.03 for low, high in pairwise(observed)), (name, table)
            assert observed[0] < 0.4 and observed[-1] > 0.6, (name, table)


def test_the_site_glicko_predicts_better_than_elo_and_moonstone(report):
    """Once both sides are established, Glicko's log loss beats Elo K=32's and Moonstone's.

    Over all games Moonstone is far behind, while Elo K=32 can edge out Glicko on a
    league this small: most ratings have few games, and Glicko's first games, from a
    deviation of 350, swing further than this league's skills are spread.
    """
    scores = systems(report)
    glicko = scores["glicko"]["established"]["log_loss"]
    assert glicko < scores["elo"]["established"]["log_loss"] - 0.003
    assert glicko < scores["moonstone"]["established"]["log_loss"] - 0.05
    assert scores["glicko"]["overall"]["log_loss"] < scores["moonstone"]["overall"]["log_loss"]


def test_small_keyset_pages_replay_exactly_like_one_big_page(report):
    names = ("glicko", "trueskill")
    paged = replay([make_system(name) for name in names], chunk_size=777)
    for name, score in zip(names, paged.systems, strict=True):
        whole = systems(report)[name]["overall"]
        assert score.overall.count == whole["games"]
        assert score.overall.log_loss == pytest.approx(whole["log_loss"], rel=1e-12)


def test_a_warm_up_is_learned_from_but_not_scored(report):
    result = replay([make_system("glicko")], score_from=LEAGUE_GAMES - 1000)
    assert result.games == LEAGUE_GAMES
    assert result.systems[0].overall.count == 1000
    # Late games, all predicted by well-fed ratings, are easier than the whole history.
    assert result.systems[0].overall.log_loss < systems(report)["glicko"]["overall"]["log_loss"]


def test_evaluate_ratings_prints_a_table_per_system_and_saves_the_report(stored_league):
    out = io.StringIO()
    call_command("evaluate_ratings", systems="glicko,elo,moonstone", stdout=out)
    text = out.getvalue()
    assert text.startswith(f"{LEAGUE_GAMES:,} games replayed in time order")
    assert [line[3:] for line in text.splitlines() if line.startswith("== ")] == [
        "glicko",
        "elo",
        "moonstone",
    ]
    assert "no probability model" in text
    assert len(re.findall(r"^ {3}overall +12,000 +0\.\d{4} +0\.\d{4} +0\.\d{4}$", text, re.M)) == 3
    assert len(re.findall(r"^ {3}0\.\d-[01]\.\d ", text, re.M)) == 30
    assert text.rstrip().endswith("saved as the latest lab report")
    saved = latest_lab_report()
    assert [system["name"] for system in saved["systems"]] == ["glicko", "elo", "moonstone"]
    assert saved["games"] == LEAGUE_GAMES


def test_evaluate_ratings_since_a_date(stored_league):
    out = io.StringIO()
    call_command("evaluate_ratings", "--systems", "elo", "--since", "2026-03-22", stdout=out)
    report = latest_lab_report()
    assert 0 < report["games"] < LEAGUE_GAMES
    assert report["since"].startswith("2026-03-22T00:00:00")
    assert f"{report['games']:,} games replayed in time order since 2026-03-22" in out.getvalue()


def test_tune_ratings_tunes_every_system_and_prints_the_site_settings(stored_league):
    out = io.StringIO()
    call_command("tune_ratings", "--rounds", "1", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "learned from the first 6,000 games, scored the next 6,000"
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:7]}
    assert set(rows) == set(SYSTEM_NAMES)
    for name, (best, default, *_) in rows.items():
        assert math.isfinite(float(best)) and float(best) <= float(default), name
    assert [float(row[0]) for row in rows.values()] == sorted(float(r[0]) for r in rows.values())
    assert rows["elo"][2].startswith("k=")
    assert {p.split("=")[0] for p in rows["glicko"][2:7]} == set(GLICKO_SETTINGS)
    assert lines[7].startswith("to run the site's Glicko at its best: set RATING_")
    assert lines[7].endswith("and run manage.py recompute_ratings")


def test_every_registered_system_is_in_the_default_report(report):
    assert [system["name"] for system in report["systems"]] == list(DEFAULT_SYSTEMS)
