"""The lab's replay on small hand-made histories: predict first, then learn; what counts."""

from __future__ import annotations

import io
import math
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command

from matches.models import Match, SiteStatistic
from matches.ratings.base import logistic
from matches.ratings.glicko import rate_game, win_probability
from matches.selectors.lab import latest_lab_report
from matches.services.evaluation import (
    DEFAULT_SYSTEMS,
    evaluate,
    refresh_lab,
)
from players.models import Character
from tests.factories import BASE_TIME, MatchFactory, PlayerFactory

# Numbers of the reference formulas (the one-chance model: tests/matches/test_one_chance.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("reference_formulas")]


def play(a, b, *, a_won=True, minutes=0, characters=("SO", "KY")) -> Match:
    return MatchFactory(
        player_a=a,
        player_b=b,
        character_a=Character.objects.get(code=characters[0]),
        character_b=Character.objects.get(code=characters[1]),
        winner=Match.Winner.A if a_won else Match.Winner.B,
        played_at=BASE_TIME + timedelta(minutes=minutes),
    )


def by_name(report: dict) -> dict[str, dict]:
    return {system["name"]: system for system in report["systems"]}


def test_the_first_game_is_predicted_as_a_coin_flip_by_every_system():
    play(PlayerFactory(), PlayerFactory())
    report = evaluate()
    assert [system["name"] for system in report["systems"]] == list(DEFAULT_SYSTEMS)
    for system in report["systems"]:
        overall = system["overall"]
        assert overall["games"] == 1
        # Had a system learned the result before predicting, it would not say 0.5.
        assert overall["log_loss"] == pytest.approx(math.log(2)), system["name"]
        assert overall["brier"] == pytest.approx(0.25)
        assert overall["accuracy"] == 0.5
        assert system["established"]["games"] == 0
        assert system["established"]["log_loss"] is None


def test_the_second_game_is_predicted_from_the_ratings_after_the_first():
    a, b = PlayerFactory(), PlayerFactory()
    play(a, b, minutes=0)
    play(a, b, minutes=10)
    systems = by_name(evaluate(systems=["elo", "glicko"]))
    elo_p = logistic(32.0)  # 1516 against 1484
    assert systems["elo"]["overall"]["log_loss"] == pytest.approx(
        (math.log(2) - math.log(elo_p)) / 2
    )
    rating_a, deviation_a, rating_b, deviation_b = rate_game(1500, 350, 1500, 350, 1.0)
    glicko_p = win_probability(rating_a, deviation_a, rating_b, deviation_b)
    assert systems["glicko"]["overall"]["log_loss"] == pytest.approx(
        (math.log(2) - math.log(glicko_p)) / 2
    )
    assert 0.7 < glicko_p < 0.8  # a bigger step than Elo's: in another calibration bin
    calibration = systems["glicko"]["overall"]["calibration"]
    assert [row["games"] for row in calibration] == [0, 0, 0, 0, 0, 1, 0, 1, 0, 0]
    assert calibration[7]["predicted"] == pytest.approx(glicko_p)
    assert calibration[7]["observed"] == 1.0
    assert calibration[0]["predicted"] is None


def test_established_games_need_twenty_earlier_games_on_both_ratings():
    a, b = PlayerFactory(), PlayerFactory()
    for minute in range(25):
        play(a, b, a_won=minute % 3 != 0, minutes=minute)
    # A new character of the same player is a new rating with no games yet.
    play(a, b, minutes=30, characters=("MA", "KY"))
    for system in evaluate()["systems"]:
        assert system["overall"]["games"] == 26
        assert system["established"]["games"] == 5, system["name"]


def test_games_of_hidden_players_and_cheaters_are_skipped():
    a, b = PlayerFactory(), PlayerFactory()
    play(a, b)
    play(a, PlayerFactory(cheater=True), minutes=1)
    play(PlayerFactory(hidden=True), b, minutes=2)
    report = evaluate(systems=["elo"])
    assert report["games"] == 1
    assert report["excluded_games"] == 2


def test_since_starts_the_replay_at_that_moment():
    a, b = PlayerFactory(), PlayerFactory()
    play(a, b, minutes=0)
    play(a, b, minutes=60)
    report = evaluate(systems=["elo"], since=BASE_TIME + timedelta(minutes=30))
    assert report["games"] == 1
    # Ratings start fresh at `since`: the remaining game is a coin flip again.
    assert report["systems"][0]["overall"]["log_loss"] == pytest.approx(math.log(2))


def test_unknown_systems_are_refused_before_anything_is_read(django_assert_num_queries):
    with django_assert_num_queries(0), pytest.raises(ValueError, match="unknown rating system"):
        evaluate(systems=["elo", "glicko3"])


def test_refresh_lab_stores_the_latest_report_even_without_games():
    assert latest_lab_report() is None
    refresh_lab()  # no games: every score is None, which JSON (and jsonb) can store
    empty = latest_lab_report()
    assert empty["games"] == 0
    assert {system["overall"]["log_loss"] for system in empty["systems"]} == {None}
    play(PlayerFactory(), PlayerFactory())
    refresh_lab()
    report = latest_lab_report()
    assert report["games"] == 1
    assert SiteStatistic.objects.filter(key="lab").count() == 1
    systems = by_name(report)
    assert list(systems) == list(DEFAULT_SYSTEMS)
    assert "logistic curve" in systems["moonstone"]["note"]
    assert "no probability model" in systems["moonstone"]["note"]


def test_the_command_refuses_unknown_systems_and_bad_dates():
    with pytest.raises(CommandError, match="unknown rating system"):
        call_command("evaluate_ratings", systems="elo,chess", stdout=io.StringIO())
    with pytest.raises(CommandError, match="since"):
        call_command("evaluate_ratings", "--since", "yesterday", stdout=io.StringIO())
    with pytest.raises(CommandError, match="at least one system"):
        call_command("evaluate_ratings", systems=" , ", stdout=io.StringIO())
    assert latest_lab_report() is None


def test_tune_ratings_needs_games_and_a_sensible_share():
    with pytest.raises(CommandError, match="no stored games"):
        call_command("tune_ratings", stdout=io.StringIO())
    with pytest.raises(CommandError, match="held-out share"):
        call_command("tune_ratings", held_out=1.5, stdout=io.StringIO())
